package instrument

import (
	"bytes"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzImports are the packages a fuzzed file may import.
var fuzzImports = map[string]bool{"sync": true, "sync/atomic": true, "time": true, "context": true, "runtime": true,
	"math/rand": true, "math/rand/v2": true, "testing": true, "errors": true, "fmt": true, "strings": true}

// FuzzRewrite: any Go file that type-checks is rewritten without a panic into a file that
// keeps every line's number and type-checks against the engine — or is left as it was, with
// the constructs the rewriter could not handle reported.
func FuzzRewrite(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/constructs/*.go")
	for _, p := range seeds {
		if b, err := os.ReadFile(p); err == nil && !bytes.Contains(b, []byte("\"example.com/")) {
			f.Add(string(b))
		}
	}
	f.Add("package p\n\nimport \"sync\"\n\nvar mu sync.Mutex\nvar n int\n\nfunc F() { go func() { mu.Lock(); n++; mu.Unlock() }() }\n")
	f.Add("package p\n\nfunc F(ch chan int) int { select { case v := <-ch: return v; default: return 0 } }\n")
	imp := importer.ForCompiler(token.NewFileSet(), "source", nil).(types.ImporterFrom)
	f.Fuzz(func(t *testing.T, src string) {
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, "fuzz.go", src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil || file.Name.Name == "main" || len(src) > 4000 {
			return
		}
		for _, im := range file.Imports {
			if !fuzzImports[strings.Trim(im.Path.Value, `"`)] {
				return // packages the rewriter treats specially, and a few others: each import is parsed from source
			}
		}
		info := &types.Info{
			Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{},
			Implicits: map[ast.Node]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}, Scopes: map[ast.Node]*types.Scope{},
			Instances: map[*ast.Ident]types.Instance{}, FileVersions: map[*ast.File]string{},
		}
		conf := types.Config{Importer: imp, Error: func(error) {}}
		pkg, err := conf.Check("example.com/fuzz", fset, []*ast.File{file}, info)
		if err != nil {
			return
		}
		r := newFileRewriter(fset, pkg, info, file, []byte(src), "fuzz.go", false)
		r.rewrite()
		out := r.output()
		if out == nil {
			return
		}
		if n, m := strings.Count(src, "\n"), bytes.Count(out, []byte("\n")); m < n {
			t.Fatalf("the rewrite lost lines (%d of %d):\n%s", m, n, out)
		}
		ofset := token.NewFileSet()
		ofile, err := parser.ParseFile(ofset, "fuzz.go", out, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("the rewrite does not parse: %v\n--- input:\n%s\n--- output:\n%s", err, src, out)
		}
		var typeErr error
		oconf := types.Config{Importer: imp, Error: func(err error) {
			if typeErr == nil {
				typeErr = err
			}
		}}
		oconf.Check("example.com/fuzz", ofset, []*ast.File{ofile}, nil)
		if typeErr != nil {
			t.Fatalf("the rewrite does not type-check: %v\n--- input:\n%s\n--- output:\n%s", typeErr, src, out)
		}
	})
}
