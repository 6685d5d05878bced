// Package lens finds the tests of a Go test file and the code lenses above them: Explore
// interleavings, and Replay when the results store holds a schedule of the test. Tests are
// found by parsing alone, so the lenses appear in a file that does not type-check. It knows
// nothing of JSON-RPC.
package lens

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/interleave-dev/interleave/engine/schedule"
)

// Commands of the lenses, which the client runs. Explore's arguments are the module
// directory, the package directory and the test's name; Replay's add the schedule file.
const (
	CommandExplore = "interleave.explore"
	CommandReplay  = "interleave.replay"
)

// Test is a test function, or a subtest with a literal name, of a file.
type Test struct {
	// Name is the test's name as -run matches it ("TestA", "TestA/sub_case").
	Name string
	// Line and Col are the 0-based line and byte column of the func keyword or the t.Run call.
	Line, Col int
}

// Tests returns the tests of a _test.go file's source: every func TestXxx(t *testing.T) and
// the t.Run subtests with literal names in their bodies (nested ones too).
func Tests(src []byte) (out []Test) {
	fset := token.NewFileSet()
	f, _ := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if f == nil {
		return nil
	}
	testing := "testing"
	for _, imp := range f.Imports {
		if p, err := strconv.Unquote(imp.Path.Value); err == nil && p == "testing" && imp.Name != nil {
			testing = imp.Name.Name
		}
	}
	defer func() {
		out = append(out, scanned(src, out, testing)...)
		sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	}()
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !isTestName(fn.Name.Name) {
			continue
		}
		param, ok := testParam(fn.Type, testing)
		if !ok {
			continue
		}
		p := fset.Position(fn.Pos())
		out = append(out, Test{Name: fn.Name.Name, Line: p.Line - 1, Col: p.Column - 1})
		if fn.Body != nil && param != "" && param != "_" {
			out = append(out, subtests(fset, fn.Body, param, fn.Name.Name, testing)...)
		}
	}
	return out
}

// testLine matches the first line of a test function, for the tests a syntax error hid from
// the parser.
var testLine = regexp.MustCompile(`^func (Test\w*)\(\s*\w+\s+\*(\w+)\.T\s*\)\s*\{`)

// scanned returns the tests that a line-by-line scan finds and the parse did not (it stops
// at a syntax error that swallows the rest of the file).
func scanned(src []byte, found []Test, testing string) []Test {
	have := make(map[string]bool)
	for _, t := range found {
		have[t.Name] = true
	}
	var out []Test
	for i, line := range strings.Split(string(src), "\n") {
		m := testLine.FindStringSubmatch(line)
		if m == nil || have[m[1]] || m[2] != testing || !isTestName(m[1]) {
			continue
		}
		have[m[1]] = true
		out = append(out, Test{Name: m[1], Line: i})
	}
	return out
}

// isTestName says whether name is a test's: Test followed by nothing or a non-lowercase
// letter, as go test requires.
func isTestName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Test")
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsLower(r)
}

// testParam returns the name of the *testing.T parameter of a test function's type.
func testParam(ft *ast.FuncType, testing string) (string, bool) {
	if ft.TypeParams != nil || ft.Results != nil || ft.Params == nil || len(ft.Params.List) != 1 {
		return "", false
	}
	field := ft.Params.List[0]
	if len(field.Names) > 1 || !isTestingT(field.Type, testing) {
		return "", false
	}
	if len(field.Names) == 0 {
		return "", true
	}
	return field.Names[0].Name, true
}

func isTestingT(e ast.Expr, testing string) bool {
	star, ok := e.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == testing && sel.Sel.Name == "T"
}

// subtests finds t.Run("literal", func(t *testing.T) {...}) calls in body, where t is the
// test's parameter, recursively.
func subtests(fset *token.FileSet, body *ast.BlockStmt, param, parent, testing string) []Test {
	var out []Test
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 2 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Run" {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); !ok || x.Name != param {
			return true
		}
		lit, ok := call.Args[0].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		name, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		full := parent + "/" + rewriteSubtest(name)
		p := fset.Position(call.Pos())
		out = append(out, Test{Name: full, Line: p.Line - 1, Col: p.Column - 1})
		if fl, ok := call.Args[1].(*ast.FuncLit); ok && fl.Body != nil {
			if inner, ok := testParam(fl.Type, testing); ok && inner != "" && inner != "_" {
				out = append(out, subtests(fset, fl.Body, inner, full, testing)...)
			}
		}
		return false
	})
	return out
}

// rewriteSubtest is the name go test gives a subtest: spaces become underscores and
// unprintable characters are escaped.
func rewriteSubtest(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			b.WriteByte('_')
		case !strconv.IsPrint(r):
			s := strconv.QuoteRune(r)
			b.WriteString(s[1 : len(s)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Lenses returns the code lenses of a test file: for each test, Explore interleavings and,
// when latest returns a schedule of it, Replay <kind> (<n> preemptions). moduleDir and
// pkgDir are the commands' first arguments. A lens is at the start of the test's line or
// t.Run call (byte and UTF-16 columns agree there in Go source indented with tabs).
func Lenses(tests []Test, moduleDir, pkgDir string, latest func(test string) *schedule.File) []protocol.CodeLens {
	var out []protocol.CodeLens
	for _, t := range tests {
		rng := protocol.Range{
			Start: protocol.Position{Line: uint32(t.Line), Character: uint32(t.Col)},
			End:   protocol.Position{Line: uint32(t.Line), Character: uint32(t.Col)},
		}
		out = append(out, protocol.CodeLens{Range: rng, Command: &protocol.Command{
			Title: "Explore interleavings", Command: CommandExplore, Arguments: []any{moduleDir, pkgDir, t.Name},
		}})
		if s := latest(t.Name); s != nil && s.Bug != nil {
			title := fmt.Sprintf("Replay %s (%d preemptions)", s.Bug.Kind, s.Result.Preemptions)
			if s.Result.Preemptions == 1 {
				title = fmt.Sprintf("Replay %s (1 preemption)", s.Bug.Kind)
			}
			out = append(out, protocol.CodeLens{Range: rng, Command: &protocol.Command{
				Title: title, Command: CommandReplay, Arguments: []any{moduleDir, pkgDir, t.Name, filepath.Clean(s.Path)},
			}})
		}
	}
	return out
}
