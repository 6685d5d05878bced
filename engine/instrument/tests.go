package instrument

// Test functions: each TestXxx runs its body once per schedule through the harness, with its
// own *testing.T; the calls of a test handle's methods go to the harness (handle.go).

import (
	"go/ast"
	"go/types"
	"strconv"
	"strings"
)

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
