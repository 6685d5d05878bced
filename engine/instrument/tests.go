package instrument

// Test functions: each TestXxx runs its body once per schedule through the harness, with its
// own *testing.T; the calls of a test handle's methods go to the harness (handle.go). Each
// ExampleXxx with an output comment runs once per schedule too, its output compared with the
// comment's after each (harness.RunExample); one without is compiled but not run, as by go
// test, and left alone.

import (
	"go/ast"
	"go/doc"
	"go/types"
	"strconv"
	"strings"
)

// example is an example function with an output comment, renamed to __il<name>: output adds
// an example of its name that explores it (harness.RunExample), with the same comment.
type example struct {
	name      string
	pos       string // the declaration's, file:line
	output    string
	unordered bool
}

// exampleFuncs renames the file's examples that go test runs (those with an output comment,
// as go/doc finds them, which is how go test does).
func (r *fileRewriter) exampleFuncs() {
	byName := map[string]*doc.Example{}
	for _, e := range doc.Examples(r.file) {
		if e.Output != "" || e.EmptyOutput {
			byName["Example"+e.Name] = e
		}
	}
	for _, d := range r.file.Decls {
		d, ok := d.(*ast.FuncDecl)
		if !ok || d.Recv != nil || d.Body == nil {
			continue
		}
		e := byName[d.Name.Name]
		if e == nil || d.Type.TypeParams != nil || d.Type.Params.NumFields() != 0 || d.Type.Results != nil {
			continue
		}
		name := d.Name.Name
		r.set(d.Name, func() string { return "__il" + name })
		at := r.fset.Position(d.Pos())
		r.examples = append(r.examples, example{name: name, pos: at.Filename + ":" + strconv.Itoa(at.Line), output: e.Output, unordered: e.Unordered})
		r.used[harnessName] = harnessPath
	}
}

// exampleText is the example function that explores the renamed example x, with x's output
// comment (which makes go test run it and compare its output).
func exampleText(x example) string {
	var b strings.Builder
	unordered := "false"
	if x.unordered {
		unordered = "true"
	}
	b.WriteString("\nfunc " + x.name + "() {\n\t" + harnessName + ".RunExample(" + strconv.Quote(x.name) + ", __il" + x.name + ", " +
		strconv.Quote(x.output) + ", " + unordered + ", " + strconv.Quote(x.pos) + ")\n")
	if x.unordered {
		b.WriteString("\t// Unordered output:\n")
	} else {
		b.WriteString("\t// Output:\n")
	}
	if x.output != "" {
		for _, l := range strings.Split(strings.TrimSuffix(x.output, "\n"), "\n") {
			b.WriteString("\t// " + l + "\n")
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// testFunc renames TestXxx(t *testing.T) to __ilTestXxx; output adds a TestXxx that runs it
// under the engine.
func (r *fileRewriter) testFunc(d *ast.FuncDecl) {
	name := d.Name.Name
	if d.Recv != nil || !isTestName(name) || d.Type.TypeParams != nil {
		return
	}
	params := d.Type.Params.List
	if len(params) != 1 || len(params[0].Names) > 1 || d.Type.Results != nil {
		return
	}
	if !r.isTestingType(params[0].Type, "T", true) {
		return
	}
	r.set(d.Name, func() string { return "__il" + name })
	r.tests = append(r.tests, name)
	r.used[harnessName] = harnessPath
	if r.testingImport() == testingName {
		r.used[testingName] = "testing"
	}
}

// testingImport is the name under which the file imports package testing.
func (r *fileRewriter) testingImport() string {
	for _, imp := range r.file.Imports {
		if imp.Path.Value != `"testing"` {
			continue
		}
		if imp.Name == nil {
			return "testing"
		}
		if imp.Name.Name != "." && imp.Name.Name != "_" {
			return imp.Name.Name
		}
	}
	return testingName
}

func isTestName(name string) bool {
	if !strings.HasPrefix(name, "Test") || name == "TestMain" {
		return false
	}
	if len(name) == 4 {
		return true
	}
	c := name[4]
	return !(c >= 'a' && c <= 'z')
}

func (r *fileRewriter) isTestingType(e ast.Expr, name string, ptr bool) bool {
	if ptr {
		s, ok := e.(*ast.StarExpr)
		if !ok {
			return false
		}
		e = s.X
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	tn, ok := r.info.Uses[sel.Sel].(*types.TypeName)
	return ok && tn.Pkg() != nil && tn.Pkg().Path() == "testing" && tn.Name() == name
}

// importsPath reports whether file imports the package path.
func importsPath(file *ast.File, path string) bool {
	for _, imp := range file.Imports {
		if p, err := strconv.Unquote(imp.Path.Value); err == nil && p == path {
			return true
		}
	}
	return false
}
