package instrument

// The rewritten file: the original text with the replacements spliced in, the imports the
// replacements use, and the line directives that keep every position the original's.

import (
	"fmt"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"
)

// output returns the rewritten file, or nil when nothing changed.
func (r *fileRewriter) output() []byte {
	if !r.changed && !r.pinAll {
		return nil
	}
	body := r.splice(r.file.Name.End(), token.Pos(r.base+len(r.src)), nil)
	var sb strings.Builder
	header := r.src[:r.off(r.file.Name.End())]
	if r.pin != "" {
		var prefix string
		prefix, header = pinLanguage(r.fset, r.file, r.src, header, r.pin)
		sb.WriteString(prefix)
	}
	// The file is compiled from a copy: the line directive gives its positions (in compile
	// errors, stack traces, runtime.Caller) the original's name; lines match one to one.
	fmt.Fprintf(&sb, "//line %s:1:1\n", r.fset.Position(r.file.Pos()).Filename)
	sb.Write(header)
	names := make([]string, 0, len(r.used))
	for n := range r.used {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&sb, "; import %s %q", n, r.used[n])
	}
	sb.WriteString(body)
	if !strings.HasSuffix(body, "\n") {
		sb.WriteString("\n")
	}
	for _, name := range r.tests {
		fmt.Fprintf(&sb, "\nfunc %s(t *%s.T) { %s.RunTest(t, __il%s) }\n", name, r.testingImport(), harnessName, name)
	}
	for _, x := range r.examples {
		sb.WriteString(exampleText(x))
	}
	// The rewrite may remove every use of an import of these packages (a file whose only
	// use of runtime is runtime.Gosched, whose only use of testing/synctest is synctest.Test,
	// whose only use of net is net.Pipe):
	// keep them used.
	keep := map[string]string{"runtime": "Gosched", "time": "Sleep", "sync": "NewCond", "sync/atomic": "AddInt32", "context": "Background",
		"math/rand": "Intn", "math/rand/v2": "IntN", "testing": "Verbose", "testing/synctest": "Wait", "hash/maphash": "MakeSeed",
		"net": "Pipe", "io": "Pipe"}
	for _, imp := range r.file.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		fn, ok := keep[path]
		if !ok {
			continue
		}
		name := ""
		if imp.Name != nil {
			name = imp.Name.Name
		} else if pn, ok := r.info.Implicits[imp].(*types.PkgName); ok {
			name = pn.Name() // math/rand/v2 is rand
		}
		switch name {
		case "", "_":
		case ".":
			fmt.Fprintf(&sb, "\nvar _ = %s\n", fn)
		default:
			fmt.Fprintf(&sb, "\nvar _ = %s.%s\n", name, fn)
		}
	}
	for _, n := range names {
		// Keep every added import used even where all uses were given up.
		switch n {
		case engineName:
			fmt.Fprintf(&sb, "\nvar _ = %s.Read\n", n)
		case vnetName:
			fmt.Fprintf(&sb, "\nvar _ = %s.Pipe\n", n)
		case harnessName:
			fmt.Fprintf(&sb, "\nvar _ = %s.RunTest\n", n)
		case testingName:
			fmt.Fprintf(&sb, "\nvar _ = %s.Verbose\n", n)
		default:
			if p := r.aliases[n]; p != nil {
				if keep := keepAlive(p, n); keep != "" {
					fmt.Fprintf(&sb, "\n%s\n", keep)
				}
			}
		}
	}
	return []byte(restoreLines(sb.String(), r.fset.Position(r.file.Pos()).Filename))
}

// keepAlive is a declaration that uses the package p imported as name; "" when p has no
// exported object to use.
func keepAlive(p *types.Package, name string) string {
	for _, n := range p.Scope().Names() {
		o := p.Scope().Lookup(n)
		if !o.Exported() {
			continue
		}
		switch o := o.(type) {
		case *types.TypeName:
			if named, ok := o.Type().(*types.Named); ok && named.TypeParams().Len() > 0 {
				continue
			}
			if _, ok := o.Type().(*types.Alias); ok {
				continue
			}
			return "var _ *" + name + "." + n
		case *types.Func:
			if sig, ok := o.Type().(*types.Signature); ok && sig.TypeParams().Len() > 0 {
				continue
			}
			return "var _ = " + name + "." + n
		case *types.Var, *types.Const:
			return "var _ = " + name + "." + n
		}
	}
	return ""
}

// restore is a mark that gives the text after it its position again after a line directive
// in the rewritten text; p is its position in the original. output replaces the mark by a
// /*line*/ directive with the line the mark is on (lines match the original's one to one;
// the text of a select case is moved to the select's line) and p's column when p is on that
// line. A mark is "\x00column\x00": Go source cannot hold a NUL.
func (r *fileRewriter) restore(p token.Pos) string {
	position := r.fset.Position(p)
	return fmt.Sprintf("\x00%d:%d\x00", position.Line, position.Column)
}

// restoreLines replaces each mark of restore in out, a rewritten file whose first line is
// the //line directive of file, by a directive giving the next character its position in
// file.
func restoreLines(out, file string) string {
	if !strings.Contains(out, "\x00") {
		return out
	}
	var sb strings.Builder
	line, col := 0, 1 // of the next byte written, in file's terms: the header is line 0
	for {
		i := strings.IndexByte(out, 0)
		chunk := out
		if i >= 0 {
			chunk = out[:i]
		}
		sb.WriteString(chunk)
		if n := strings.Count(chunk, "\n"); n > 0 {
			line += n
			col = len(chunk) - strings.LastIndex(chunk, "\n")
		} else {
			col += len(chunk)
		}
		if i < 0 {
			return sb.String()
		}
		out = out[i+1:]
		j := strings.IndexByte(out, 0)
		var origLine, origCol int
		fmt.Sscanf(out[:j], "%d:%d", &origLine, &origCol)
		out = out[j+1:]
		if origLine == line {
			col = origCol
		}
		sb.WriteString(fmt.Sprintf("/*line %s:%d:%d*/", file, line, col))
	}
}
