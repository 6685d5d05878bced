package instrument

import (
	"go/ast"
	"go/build/constraint"
	"go/token"
	"go/version"
	"strings"
)

// The language version of rewritten code.
//
// The runtime copy needs Go 1.22 (its go.mod says so), and a main module whose go line is
// older than a dependency's must be updated before it builds ("go: updates to go.mod
// needed"). The alternate go.mod therefore says go 1.22 for such a module — with a godebug
// line that keeps the runtime's behaviour of the module's own version (panic(nil), ...) —
// and every file of its packages is compiled from a copy whose //go:build line pins the
// file's language version to go1.21, the oldest a file can ask for: per-iteration loop
// variables (Go 1.22) do not change the meaning of code written before them. Files of other
// instrumented modules older than Go 1.21 keep their module's go line; only their rewritten
// copies are pinned, which lets them call the engine's generic functions.

// runtimeGoVersion is the go line of the runtime copy's go.mod.
const runtimeGoVersion = "1.22"

// pinnedLanguage is the language version the copies of files of modules older than the
// runtime are pinned to.
const pinnedLanguage = "go1.21"

// modulePin returns the language version to pin the files of a module with go line goLine
// to ("" when none is needed).
func modulePin(goLine string) string {
	if goLine == "" {
		goLine = "1.16" // the go command's assumption for a go.mod without a go line
	}
	if version.Compare("go"+goLine, "go"+runtimeGoVersion) < 0 {
		return pinnedLanguage
	}
	return ""
}

// pinLanguage returns the header of a file (its source up to the package name) with its build
// constraint ANDed with the language version pin, on the line where it was, or, when the file
// has no //go:build line, a prefix that puts one before it. A file's legacy "// +build" lines
// are carried into the new //go:build line and left empty ("//"): the go command ignores them
// once there is a //go:build line, but go vet, which go test runs, refuses a file whose +build
// lines do not say what its //go:build line says — as gofmt has written both since Go 1.17,
// every such file of a module older than the runtime would fail to build. Line numbers are
// kept: the prefix ends before the //line directive that the rewritten file starts with.
func pinLanguage(fset *token.FileSet, file *ast.File, src, header []byte, pin string) (prefix string, out []byte) {
	pinExpr := &constraint.TagExpr{Tag: pin}
	var plus, goBuild constraint.Expr
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	span := func(c *ast.Comment, text string) edit {
		return edit{fset.Position(c.Pos()).Offset, fset.Position(c.End()).Offset, text}
	}
	for _, g := range file.Comments {
		if g.Pos() >= file.Package {
			break
		}
		for _, c := range g.List {
			switch {
			case constraint.IsGoBuild(c.Text) && goBuild == nil:
				x, err := constraint.Parse(c.Text)
				if err != nil {
					continue // the go command would have refused the file
				}
				goBuild = x
				edits = append(edits, span(c, "//go:build "+(&constraint.AndExpr{X: x, Y: pinExpr}).String()))
			case constraint.IsPlusBuild(c.Text):
				if x, err := constraint.Parse(c.Text); err == nil {
					if plus == nil {
						plus = x
					} else {
						plus = &constraint.AndExpr{X: plus, Y: x}
					}
				}
				edits = append(edits, span(c, "//"))
			}
		}
	}
	out = make([]byte, 0, len(header)+64)
	at := 0
	for _, e := range edits {
		out = append(append(out, header[at:e.start]...), e.text...)
		at = e.end
	}
	out = append(out, header[at:]...)
	if goBuild != nil {
		return "", out
	}
	var x constraint.Expr = pinExpr
	if plus != nil {
		x = &constraint.AndExpr{X: plus, Y: pinExpr}
	}
	return "//go:build " + strings.TrimSpace(x.String()) + "\n\n", out
}
