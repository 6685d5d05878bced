package instrument

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestPipesAndNetRewrite: io.Pipe is the engine's where its ends are used as interfaces and
// stays real (a problem) where one is used as *io.PipeReader; net.Listen and net.Dial are
// the virtual network's unless the package asserts a connection to *net.TCPConn without
// comma-ok (then they stay real, each a problem). Every output type-checks.
func TestPipesAndNetRewrite(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks package net from source")
	}
	tests := []struct {
		name, body    string
		want, notWant []string
		problem       string
	}{
		{"pipe through interfaces", `
func F() ([]byte, error) {
	pr, pw := io.Pipe()
	go func() { pw.Write([]byte("x")); pw.CloseWithError(nil) }()
	var rc io.ReadCloser
	rc = pr
	defer rc.Close()
	return io.ReadAll(pr)
}

func G() io.Reader {
	r, w := io.Pipe()
	go w.Close()
	if r == nil {
		return nil
	}
	return r
}`, []string{"__il.IOPipe(", "__il.IOPipe("}, nil, ""},
		{"pipe used as its type", `
func read(r *io.PipeReader) { r.Close() }

func F() {
	pr, pw := io.Pipe()
	pw.Close()
	read(pr)
}`, nil, []string{"__il.IOPipe("}, "io.Pipe stays a real pipe, outside the engine: pr is used as *io.PipeReader"},
		{"listen and dial", `
func F() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer l.Close()
	var d net.Dialer
	c, err := d.Dial("tcp", l.Addr().String())
	if err != nil {
		return err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	a, b := net.Pipe()
	a.Close()
	b.Close()
	return c.Close()
}`, []string{"__ilvnet.Listen(", "__ilvnet.DialerDial(&d, ", "__ilvnet.Pipe("}, nil, ""},
		{"assertion to *net.TCPConn", `
func F() error {
	c, err := net.Dial("tcp", "127.0.0.1:80")
	if err != nil {
		return err
	}
	c.(*net.TCPConn).SetNoDelay(true)
	return c.Close()
}`, nil, []string{"__ilvnet."}, "net.Dial stays real, outside the engine: the package asserts a connection to a *net.TCP type at p.go:18:2"},
		// A multiplexer's tests (libp2p/go-yamux) run over net.Pipe and assert one TCP
		// connection of another test: the pipe is no *net.TCPConn natively either, so it
		// stays virtual; only the dial stays real.
		{"assertion to *net.TCPConn beside a pipe", `
func F() error {
	a, b := net.Pipe()
	a.Close()
	b.Close()
	c, err := net.Dial("tcp", "127.0.0.1:80")
	if err != nil {
		return err
	}
	c.(*net.TCPConn).CloseWrite()
	return c.Close()
}`, []string{"__ilvnet.Pipe("}, []string{"__ilvnet.Dial("}, "net.Dial stays real, outside the engine: the package asserts a connection to a *net.TCP type at p.go:21:2"},
		{"assertion to *net.UnixListener", `
func F() error {
	l, err := net.Listen("unix", "/tmp/s.sock")
	if err != nil {
		return err
	}
	l.(*net.UnixListener).SetUnlinkOnClose(true)
	return l.Close()
}`, nil, []string{"__ilvnet."}, "net.Listen stays real, outside the engine: the package asserts a connection to a *net.Unix type at p.go:18:2"},
	}
	imp := importer.ForCompiler(token.NewFileSet(), "source", nil).(types.ImporterFrom)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "package p\n\nimport (\n\t\"io\"\n\t\"net\"\n)\n\nvar (\n\t_ io.Reader\n\t_ net.Conn\n)\n" + tt.body + "\n"
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
			pkg, err := (&types.Config{Importer: imp}).Check("example.com/p", fset, []*ast.File{file}, info)
			if err != nil {
				t.Fatalf("input: %v\n%s", err, src)
			}
			r := newFileRewriter(fset, pkg, info, file, []byte(src), "p.go", false)
			r.tcpReal = tcpAssertion(fset, info)
			r.rewrite()
			out := string(r.output())
			if out == "" {
				out = src
			}
			for _, w := range tt.want {
				if strings.Count(out, w) < strings.Count(strings.Join(tt.want, "\x00"), w) {
					t.Errorf("output lacks %s:\n%s", w, out)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output has %s:\n%s", w, out)
				}
			}
			var msgs []string
			for _, p := range r.problems {
				msgs = append(msgs, p.Msg)
			}
			if got := strings.Join(msgs, "\n"); tt.problem == "" && got != "" || !strings.Contains(got, tt.problem) {
				t.Errorf("problems %q, want %q", got, tt.problem)
			}
			ofset := token.NewFileSet()
			ofile, err := parser.ParseFile(ofset, "p.go", out, parser.SkipObjectResolution)
			if err != nil {
				t.Fatalf("output does not parse: %v\n%s", err, out)
			}
			if _, err := (&types.Config{Importer: imp}).Check("example.com/p", ofset, []*ast.File{ofile}, nil); err != nil {
				t.Fatalf("output does not type-check: %v\n%s", err, out)
			}
		})
	}
}

// TestNetServers: a package keeps its connections real when it imports net/http or net/rpc
// while they are not instrumented (or a server of net/http's that never is, net/http/fcgi), or
// a package of a module that is not instrumented and uses package net; not for an
// instrumented one, nor for a library that does not use net, nor for net/http's passive
// parts.
func TestNetServers(t *testing.T) {
	netPkg := &packages.Package{PkgPath: "net"}
	lib := &packages.Package{PkgPath: "example.com/lib/mux", Module: &packages.Module{Path: "example.com/lib"}, Imports: map[string]*packages.Package{"net": netPkg}}
	own := &packages.Package{PkgPath: "example.com/m/mux", Module: &packages.Module{Path: "example.com/m", Main: true}, Imports: map[string]*packages.Package{"net": netPkg}}
	plain := &packages.Package{PkgPath: "example.com/lib/assert", Module: &packages.Module{Path: "example.com/lib"}, Imports: map[string]*packages.Package{"fmt": {PkgPath: "fmt"}}}
	stdHTTP, stdTest := &packages.Package{PkgPath: "net/http"}, &packages.Package{PkgPath: "net/http/httptest"}
	instrumented := func(p *packages.Package) bool {
		return p.Module != nil && p.Module.Main || p == stdHTTP || p == stdTest
	}
	for _, tt := range []struct {
		imports []*packages.Package
		want    string
	}{
		{[]*packages.Package{netPkg, {PkgPath: "net/http"}}, "the package imports net/http, whose goroutines the engine does not run"},
		{[]*packages.Package{{PkgPath: "net/rpc/jsonrpc"}}, "the package imports net/rpc/jsonrpc, whose goroutines the engine does not run"},
		{[]*packages.Package{netPkg, lib}, "the package imports example.com/lib/mux, which is not instrumented and uses package net"},
		{[]*packages.Package{netPkg, own, plain, {PkgPath: "io"}}, ""},
		// net/http instrumented itself (stdlib.go), and the parts of it that neither serve
		// nor dial: the package's connections are the virtual network's.
		{[]*packages.Package{netPkg, stdHTTP, stdTest}, ""},
		{[]*packages.Package{netPkg, {PkgPath: "net/http/httptrace"}, {PkgPath: "net/http/cookiejar"}}, ""},
		{[]*packages.Package{netPkg, stdHTTP, {PkgPath: "net/http/fcgi"}}, "the package imports net/http/fcgi, whose goroutines the engine does not run"},
	} {
		p := &packages.Package{PkgPath: "example.com/m", Imports: map[string]*packages.Package{}}
		for _, q := range tt.imports {
			p.Imports[q.PkgPath] = q
		}
		if got := netServers(p, instrumented); got != tt.want {
			t.Errorf("imports %v: netServers = %q, want %q", slices.Collect(maps.Keys(p.Imports)), got, tt.want)
		}
	}
}
