package instrument

// A failed build of rewritten packages, explained: the go command names the user's file:line
// (the rewritten copies carry line directives), but not that interleave changed the line, what
// it made of it, or what to do. Each compile error at a line the rewrite changed is followed by
// the line as written and as rewritten, and by the fix when one exists: -instrument M when the
// error names a type of a package of module M, which was not instrumented while the line that
// uses it was; otherwise the fault is the instrumenter's, and leaving the module out (for one
// instrumented on request) or reporting the line is what can be done.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// failedFile is what explainFailure knows of a rewritten file.
type failedFile struct {
	dst    string // the rewritten copy
	module string // the module of its package
	main   bool   // the main module's: not instrumented on request
	// uninstrumented are the packages the file's package imports that were not
	// instrumented, by package name and by import path, with their modules.
	uninstrumented map[string]string
}

// compileError is a line of the go command's output that reports an error at a position.
var compileError = regexp.MustCompile(`(?m)^(\S+\.go):(\d+):(\d+): (.*)$`)

// explainFailure returns out, the go command's output of a failed build run in dir, with an
// explanation after each error at a line of a rewritten file (files, by original path) that
// the rewrite changed.
func explainFailure(out, dir string, files map[string]failedFile) string {
	lines := strings.Split(out, "\n")
	var b strings.Builder
	explained := map[string]bool{}
	for i, line := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
		m := compileError.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		path := m[1]
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		f, ok := files[filepath.Clean(path)]
		if !ok {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		orig, rewritten, changed := lineOf(path, f.dst, n)
		if !changed || explained[m[1]+":"+m[2]] {
			continue
		}
		explained[m[1]+":"+m[2]] = true
		fmt.Fprintf(&b, "\n\tinterleave rewrote %s:%d, %s\n\t\tas written:   %s\n\t\tas rewritten: %s", m[1], n, construct(orig, rewritten), shorten(orig), shorten(stripDirectives(rewritten)))
		switch mod := namedModule(m[4], f.uninstrumented); {
		case mod != "":
			fmt.Fprintf(&b, "\n\t\tfix: the error names a type of module %s, which was not instrumented: interleave test -instrument %s", mod, mod)
		case !f.main:
			fmt.Fprintf(&b, "\n\t\tthis is the instrumenter's fault (please report the line); module %s is instrumented on request: without -instrument %s the test builds", f.module, f.module)
		default:
			b.WriteString("\n\t\tthis is the instrumenter's fault: please report the line with the rewritten text above")
		}
	}
	return b.String()
}

// lineOf returns line n of the original file and of its rewritten copy, and whether they
// differ (lines match one to one).
func lineOf(orig, dst string, n int) (string, string, bool) {
	a, err1 := os.ReadFile(orig)
	c, err2 := os.ReadFile(dst)
	if err1 != nil || err2 != nil {
		return "", "", false
	}
	al, cl := bytes.Split(a, []byte("\n")), bytes.Split(c, []byte("\n"))
	// The rewritten copy's line 1 follows its first //line directive (a language pin may
	// come before it).
	k := 0
	for k < len(cl) && !bytes.HasPrefix(cl[k], []byte("//line ")) {
		k++
	}
	if n < 1 || n > len(al) || k+n >= len(cl) {
		return "", "", false
	}
	o, r := strings.TrimSpace(string(al[n-1])), strings.TrimSpace(string(cl[k+n]))
	return o, r, o != r
}

// construct names what the rewrite made of the line: the engine functions and the harness's
// hooks its rewritten text calls.
func construct(orig, rewritten string) string {
	calls := map[string]bool{}
	for _, m := range regexp.MustCompile(`\b(__il|__ilh)\.([A-Za-z]+)`).FindAllStringSubmatch(rewritten, -1) {
		pkg := "engine"
		if m[1] == "__ilh" {
			pkg = "harness"
		}
		calls[pkg+"."+m[2]] = true
	}
	if len(calls) == 0 {
		return "which the rewrite changed"
	}
	names := make([]string, 0, len(calls))
	for c := range calls {
		names = append(names, c)
	}
	sort.Strings(names)
	return "whose operations now call " + strings.Join(names, ", ")
}

// namedModule returns the module of an uninstrumented package (by name or import path) whose
// identifier the error message msg names ("pkg.T", "*pkg.T", `"path".T`), or "".
func namedModule(msg string, uninstrumented map[string]string) string {
	keys := make([]string, 0, len(uninstrumented))
	for k := range uninstrumented {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if regexp.MustCompile(`(^|[^\w./])` + regexp.QuoteMeta(k) + `"?\.[A-Za-z_]`).MatchString(msg) {
			return uninstrumented[k]
		}
	}
	return ""
}

// stripDirectives removes the /*line …*/ directives of a rewritten line.
func stripDirectives(s string) string {
	return regexp.MustCompile(`/\*line [^*]*\*/`).ReplaceAllString(s, "")
}

func shorten(s string) string {
	if len(s) > 240 {
		return s[:240] + "…"
	}
	return s
}
