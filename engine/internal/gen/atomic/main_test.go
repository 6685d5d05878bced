package main

import (
	"bytes"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestUpToDate: engine/atomic.go is what the generator generates.
func TestUpToDate(t *testing.T) {
	have, err := os.ReadFile("../../../atomic.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, generate()) {
		t.Fatal("engine/atomic.go is stale: run go generate in engine/")
	}
}

// TestComplete: every exported function of package sync/atomic and every exported method of
// its exported types has its engine function, named by the naming rule.
func TestComplete(t *testing.T) {
	pkg, err := build.Import("sync/atomic", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var want []string
	for _, name := range pkg.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(pkg.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() {
				continue
			}
			if fd.Recv == nil {
				want = append(want, "Atomic"+fd.Name.Name)
				continue
			}
			typ := fd.Recv.List[0].Type
			if s, ok := typ.(*ast.StarExpr); ok {
				typ = s.X
			}
			if ix, ok := typ.(*ast.IndexExpr); ok {
				typ = ix.X
			}
			if id, ok := typ.(*ast.Ident); ok && id.IsExported() {
				want = append(want, "Atomic"+id.Name+fd.Name.Name)
			}
		}
	}
	if len(want) < 80 {
		t.Fatalf("only %d functions found in %s", len(want), pkg.Dir)
	}
	have := map[string]bool{}
	for _, f := range all() {
		have[f.name] = true
	}
	var missing []string
	for _, w := range want {
		if !have[w] {
			missing = append(missing, w)
		}
		delete(have, w)
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("missing: %s", strings.Join(missing, " "))
	}
	if len(have) > 0 {
		t.Errorf("generated but not in sync/atomic: %v", have)
	}
}
