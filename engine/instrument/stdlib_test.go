package instrument

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestSyncOnlyRewrite: a file of the standard library's servers (syncOnly) has its go
// statements, channel operations, locks and map ranges rewritten, and the stores of keys
// with no order of their own (which fix a map range's order), but none of its memory
// accesses; the same file rewritten as a user's has them. Both outputs type-check.
func TestSyncOnlyRewrite(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks package sync from source")
	}
	const src = `package p

import "sync"

type conn struct{ n int }

type S struct {
	mu     sync.Mutex
	conns  map[*conn]bool
	counts map[string]int
	total  int
}

func (s *S) Add(c *conn) {
	s.mu.Lock()
	s.conns[c] = true
	s.counts["x"] = c.n
	s.total++
	s.mu.Unlock()
}

func (s *S) Close() int {
	done := make(chan int)
	go func() {
		n := 0
		for c := range s.conns {
			n += c.n
		}
		delete(s.counts, "x")
		done <- n + len(s.counts)
	}()
	return <-done
}
`
	imp := importer.ForCompiler(token.NewFileSet(), "source", nil).(types.ImporterFrom)
	for _, tt := range []struct {
		syncOnly      bool
		want, notWant []string
	}{
		{true,
			[]string{"__il.Lock(&s.mu", "__il.Unlock(&s.mu", "__il.MapStore(s.conns, c, true", "__il.MapRange(s.conns", "__il.Go(", "__il.MakeChan", "__il.Recv(", "__il.Send("},
			[]string{"__il.Store(", "__il.Load(", "MapStore(s.counts", "__il.MapDelete(", "__il.MapRead("}},
		{false,
			[]string{"__il.Lock(&s.mu", "__il.MapStore(__il.Load(&s.conns", "__il.MapStore(__il.Load(&s.counts", "__il.Store(", "__il.MapDelete("},
			nil},
	} {
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		info := &types.Info{
			Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{},
			Implicits: map[ast.Node]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}, Scopes: map[ast.Node]*types.Scope{},
			Instances: map[*ast.Ident]types.Instance{}, FileVersions: map[*ast.File]string{},
		}
		// The standard library's files have no version of their own (FileVersions "").
		pkg, err := (&types.Config{Importer: imp}).Check("example.com/p", fset, []*ast.File{file}, info)
		if err != nil {
			t.Fatal(err)
		}
		r := newFileRewriter(fset, pkg, info, file, []byte(src), "p.go", false)
		r.syncOnly = tt.syncOnly
		r.rewrite()
		out := string(r.output())
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("syncOnly %v: output lacks %s:\n%s", tt.syncOnly, w, out)
			}
		}
		for _, w := range tt.notWant {
			if strings.Contains(out, w) {
				t.Errorf("syncOnly %v: output has %s:\n%s", tt.syncOnly, w, out)
			}
		}
		if len(r.problems) > 0 {
			t.Errorf("syncOnly %v: problems %v", tt.syncOnly, r.problems)
		}
		ofset := token.NewFileSet()
		ofile, err := parser.ParseFile(ofset, "p.go", out, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("output does not parse: %v\n%s", err, out)
		}
		if _, err := (&types.Config{Importer: imp}).Check("example.com/p", ofset, []*ast.File{ofile}, nil); err != nil {
			t.Fatalf("syncOnly %v: output does not type-check: %v\n%s", tt.syncOnly, err, out)
		}
	}
}

// TestStdStateFile: net/http's state file gives every execution a DefaultTransport made by
// the declaration's own initializer, unless the program set one of its own before the
// exploration, and an empty DefaultServeMux when it was empty then; net/rpc's gives
// DefaultServer back the services it had; other packages have none.
func TestStdStateFile(t *testing.T) {
	const src = `package http

import (
	"net"
	"time"
)

type RoundTripper interface{}

type Transport struct {
	DialContext     any
	IdleConnTimeout time.Duration
}

var DefaultTransport RoundTripper = &Transport{
	DialContext:     (&net.Dialer{Timeout: 30 * time.Second}).DialContext,
	IdleConnTimeout: 90 * time.Second,
}
`
	name := filepath.Join(t.TempDir(), "transport.go")
	if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	p := &packages.Package{PkgPath: "net/http", Fset: fset, Syntax: []*ast.File{file}, CompiledGoFiles: []string{name}}
	out := string(stdStateFile(p))
	for _, w := range []string{
		"package http\n",
		"var __ilDefaultTransport = DefaultTransport",
		"__il.RegisterState(func() func() {",
		"if saved != __ilDefaultTransport {\n\t\t\t\tDefaultTransport = saved",
		"DefaultTransport = &Transport{\n\tDialContext:     (&net.Dialer{Timeout: 30 * time.Second}).DialContext,\n\tIdleConnTimeout: 90 * time.Second,\n}",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("state file lacks %q:\n%s", w, out)
		}
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "zz.go", out, 0); err != nil {
		t.Errorf("state file does not parse: %v\n%s", err, out)
	}
	if !strings.Contains(out, "emptyMux := reflect.DeepEqual(*mux, ServeMux{})") || !strings.Contains(out, "*mux = ServeMux{}") {
		t.Errorf("state file does not empty a DefaultServeMux that was empty:\n%s", out)
	}
	p.PkgPath = "net/rpc"
	out = string(stdStateFile(p))
	for _, w := range []string{"package rpc\n", "saved.serviceMap.Range(", "saved.serviceMap.Clear()", "saved.serviceMap.Store(names[i], services[i])"} {
		if !strings.Contains(out, w) {
			t.Errorf("net/rpc's state file lacks %q:\n%s", w, out)
		}
	}
	p.PkgPath = "crypto/tls"
	if out := stdStateFile(p); out != nil {
		t.Errorf("crypto/tls has a state file:\n%s", out)
	}
}

// TestRuntimeImportsNoInstrumentedStd: the standard library's packages rewritten for their
// synchronization import the engine and engine/vnet once rewritten, so no runtime package
// may depend on one of them: the instrumented build would have an import cycle.
func TestRuntimeImportsNoInstrumentedStd(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", enginePath, vnetPath, harnessPath).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if stdInstrumented[pkg] {
			t.Errorf("the runtime packages depend on %s, which the instrumenter rewrites to import them", pkg)
		}
	}
}
