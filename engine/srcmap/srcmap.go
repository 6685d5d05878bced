// Package srcmap finds the positions of a schedule again in source that was edited since the
// schedule was recorded. A schedule names each operation by its position ("x_test.go:12");
// one comment line added above a test moves every position below it, and a replay that
// compared positions as written would refuse the schedule. So a schedule file carries, for
// each position, an anchor (schedule.Anchor): the function the line is in, the line's place in
// that function, and the line's text. Anchors computes them when the schedule is saved;
// Relocate rebuilds the position map from the current source when it is replayed: a line is
// found again by its function and its tokens, whatever comments, blank lines, reformatting or
// edits elsewhere in the file moved it, and a line that is no longer there (it changed, or was
// removed) is reported as changed.
//
// Positions are module-relative ("pkg/x.go:12", "pkg/x.go:12:3"), as the instrumenter writes
// them; a position whose file is not under the module's root (an instrumented dependency) has
// no anchor and is matched as written. The package uses the standard library only: the
// engine that imports it is compiled into programs under test.
package srcmap

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/interleave-dev/interleave/engine/bounded"
)

// pos is a parsed position: a file, a line and an optional column.
type pos struct {
	file      string
	line, col int
}

// parsePos splits "file:line" or "file:line:col".
func parsePos(s string) (pos, bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return pos{}, false
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n <= 0 {
		return pos{}, false
	}
	p := pos{file: s[:i], line: n}
	if j := strings.LastIndexByte(p.file, ':'); j >= 0 {
		if m, err := strconv.Atoi(p.file[j+1:]); err == nil && m > 0 {
			p = pos{file: p.file[:j], line: m, col: n}
		}
	}
	return p, p.file != ""
}

func (p pos) String() string {
	s := p.file + ":" + strconv.Itoa(p.line)
	if p.col > 0 {
		s += ":" + strconv.Itoa(p.col)
	}
	return s
}

// source is one parsed Go file: the tokens of each line and the functions' line ranges.
type source struct {
	lines []line // by line number - 1
	funcs []fn
}

type line struct {
	key  string // the line's tokens, normalized
	text string // the line as written, from its first token to the end of its last
	cols []int  // the column (1-based, in bytes) of each token
}

type fn struct {
	name       string
	start, end int // lines, inclusive
}

// readSource reads and parses the Go file at path; nil if it cannot be read or is not Go.
func readSource(path string) *source {
	if !strings.HasSuffix(path, ".go") {
		return nil
	}
	src, err := bounded.Source.ReadFile(path)
	if err != nil {
		return nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if f == nil {
		return nil
	}
	_ = err // a file with errors still has the functions it parsed
	s := &source{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		s.funcs = append(s.funcs, fn{name: funcName(fd), start: fset.Position(fd.Pos()).Line, end: fset.Position(fd.End()).Line})
	}
	s.lines = lineKeys(src)
	return s
}

// funcName is "Name" or "Recv.Name" for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.ParenExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fd.Name.Name
		}
		return fd.Name.Name
	}
}

// lineKeys scans src and returns each line's normalized tokens and text.
func lineKeys(src []byte) []line {
	nl := strings.Count(string(src), "\n") + 1
	lines := make([]line, nl)
	fset := token.NewFileSet()
	tf := fset.AddFile("", fset.Base(), len(src))
	var sc scanner.Scanner
	sc.Init(tf, src, nil, 0) // comments skipped
	type span struct{ from, to int }
	spans := make([]span, nl)
	keys := make([][]string, nl)
	cols := make([][]int, nl)
	for {
		p, tok, lit := sc.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON && lit == "\n" {
			continue // inserted, not written
		}
		text := tokText(tok, lit)
		off := tf.Offset(p)
		ln := tf.Line(p) - 1
		if ln < 0 || ln >= nl {
			continue
		}
		end := off + len(text)
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			end = off + i // a raw string spanning lines: its first line
		}
		if keys[ln] == nil {
			spans[ln].from = off
		}
		spans[ln].to = end
		keys[ln] = append(keys[ln], text)
		cols[ln] = append(cols[ln], tf.Position(p).Column)
	}
	for i := range lines {
		if keys[i] == nil {
			continue
		}
		lines[i] = line{key: strings.Join(keys[i], " "), text: strings.TrimSpace(string(src[spans[i].from:min(spans[i].to, len(src))])), cols: cols[i]}
	}
	return lines
}

func tokText(tok token.Token, lit string) string {
	if lit != "" {
		return lit
	}
	return tok.String()
}

// normalize returns the normalized tokens of a line's text, as lineKeys keys them.
func normalize(text string) string {
	if ls := lineKeys([]byte(text)); len(ls) > 0 {
		return ls[0].key
	}
	return ""
}

// funcAt returns the function that holds line n, nil if none does.
func (s *source) funcAt(n int) *fn {
	for i := range s.funcs {
		if f := &s.funcs[i]; f.start <= n && n <= f.end {
			return f
		}
	}
	return nil
}

func (s *source) funcNamed(name string) *fn {
	for i := range s.funcs {
		if s.funcs[i].name == name {
			return &s.funcs[i]
		}
	}
	return nil
}

// outside reports whether line n (1-based) is in no function.
func (s *source) outside(n int) bool { return s.funcAt(n) == nil }

// files caches parsed sources by path.
type files struct {
	root string
	m    map[string]*source
}

func (fs *files) get(rel string) *source {
	if fs.m == nil {
		fs.m = map[string]*source{}
	}
	if s, ok := fs.m[rel]; ok {
		return s
	}
	var s *source
	if !filepath.IsAbs(rel) && !strings.HasPrefix(filepath.Clean(filepath.FromSlash(rel)), "..") {
		s = readSource(filepath.Join(fs.root, filepath.FromSlash(rel)))
	}
	fs.m[rel] = s
	return s
}

// goFiles lists the module-relative paths of the .go files of dir (module-relative).
func goFiles(root, dir string) []string {
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	return out
}

// tokenAt returns the index of the token of the line at column col, -1 if none starts there.
func (l line) tokenAt(col int) int {
	for i, c := range l.cols {
		if c == col {
			return i
		}
	}
	return -1
}
