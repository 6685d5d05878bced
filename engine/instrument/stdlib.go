package instrument

// The standard library's servers and clients, instrumented for their synchronization.
//
// Rewriting calls at the user's call sites (net.Listen, net.Dial: specials.go) reaches the
// connections the user's code makes and the goroutines it starts, not those of net/http: an
// http.Server serves each connection in a goroutine of its own, an http.Transport dials and
// reads responses in goroutines of its own, and both wait on their own channels, mutexes and
// condition variables, where the engine cannot see them. So when a test binary links them,
// the standard library's packages below are rewritten too, from their GOROOT
// files through the build's overlay, as the user's are but for memory accesses (syncOnly):
// their go statements, channel operations, sync and sync/atomic operations, time and context
// deadlines become the engine's, their map ranges take a fixed order, and their net.Listen and
// (*net.Dialer).DialContext calls reach the virtual network. A server's goroutines and a
// client's are then goroutines the engine runs, a request racing a shutdown is a choice of
// the schedule, and crypto/tls's locks over a virtual connection are the engine's.
//
// The engine's runtime packages import none of these (TestRuntimeImportsNoInstrumentedStd
// keeps it so), so
// an instrumented net/http may import them without a cycle. When the instrumented build
// fails (a construct of a newer Go the rewriter gets wrong), the build is made again without
// them and the user's connections that net/http could reach stay real, as netServers says:
// reported as instrumentation problems, never a false report.

import (
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"strings"

	"golang.org/x/tools/go/packages"
)

// stdInstrumented lists the standard library's packages instrumented (syncOnly) in the test
// binaries that link them.
var stdInstrumented = map[string]bool{
	"net/http":          true,
	"net/http/httptest": true,
	"net/http/httputil": true,
	"net/rpc":           true,
	"net/rpc/jsonrpc":   true,
	"crypto/tls":        true,
}

// stdKept lists the files of those packages left as they are: crypto/tls's certificate
// cache is a process-wide sync.Map whose entries the runtime's cleanups delete, from a
// goroutine of its own, whenever the garbage collector runs. Rewritten, the cache's state
// would be left from one execution to the next (a fresh process would store where a later
// execution loads: a replay diverging) and the cleanups would be operations of a goroutine
// the engine did not start; kept real, it blocks nobody and is invisible to the schedule.
// net/http's file transport (NewFileTransport: file:// URLs) answers through an io.Pipe whose
// writer it keeps in a field of type *io.PipeWriter, which the engine's pipe cannot be: its
// pipe would stay real whether the rest were rewritten or not, and a request through it
// blocks outside the engine either way (the execution's notice says where); kept whole, it
// is not reported at every build of every test that links net/http.
var stdKept = map[string]bool{
	"crypto/tls/cache.go":       true,
	"net/http/filetransport.go": true,
}

// stdServer reports whether p is one of the standard library's packages instrumented for
// their synchronization.
func stdServer(p *packages.Package) bool {
	return p.Module == nil && stdInstrumented[p.PkgPath]
}

// serverImport reports whether path is net/http's or net/rpc's (or a package under them).
func serverImport(path string) bool {
	return path == "net/http" || strings.HasPrefix(path, "net/http/") || path == "net/rpc" || strings.HasPrefix(path, "net/rpc/")
}

// headLine is the first line of s that is not empty nor a go command's "# package" header.
func headLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return ""
}

// passiveServerPart reports whether path, a package under net/http, neither serves nor dials
// a connection of its own: its importer's connections need not stay real for it.
func passiveServerPart(path string) bool {
	switch path {
	case "net/http/httptrace", "net/http/cookiejar", "net/http/pprof":
		return true
	}
	return strings.HasPrefix(path, "net/http/internal")
}

// stdStateFile returns the state file of net/http or net/rpc (see state.go), given the
// package; nil for another package. The standard library's package variables are not saved
// and restored as a user package's are (a shallow copy would share the state executions
// change); these are what an execution leaves that the next one would see:
//
//   - net/http's DefaultTransport: every execution starts with one of its own, made by the
//     initializer of the package's (the text of transport.go's declaration), so that no idle
//     connection, protocol registration or once-only setup of an earlier execution changes
//     what this one does (the first execution in a fresh process, as a replay runs it, would
//     not see them). A DefaultTransport the program set itself before the exploration began
//     is restored as it was. Without the declaration, the package keeps what executions
//     leave.
//   - net/http's DefaultServeMux: a pattern registered by an execution (http.Handle,
//     rpc.HandleHTTP) would make the next one's registration panic, as a second run of go
//     test -count=2 does; when nothing was registered before the exploration began, every
//     execution starts with an empty mux. One registered to before (by an init function,
//     net/http/pprof's) keeps what executions add: a ServeMux cannot be copied.
//   - net/rpc's DefaultServer: every execution starts with the services registered before
//     the exploration began (rpc.Register of a service an earlier execution registered
//     fails).
func stdStateFile(p *packages.Package) []byte {
	var b strings.Builder
	switch p.PkgPath {
	case "net/http":
		init := defaultTransportInit(p)
		b.WriteString("// Code generated by interleave: net/http's state restored before each execution. DO NOT EDIT.\n\n")
		// The initializer names package net and package time (a Dialer, its timeouts).
		fmt.Fprintf(&b, "package http\n\nimport (\n\t%s %q\n\t\"net\"\n\t\"reflect\"\n\t\"time\"\n)\n\n", engineName, enginePath)
		b.WriteString("var (\n\t_ net.Conn\n\t_ time.Duration\n)\n\n")
		b.WriteString("var __ilDefaultTransport = DefaultTransport\n\n")
		b.WriteString("func init() {\n\t" + engineName + ".RegisterState(func() func() {\n")
		b.WriteString("\t\tsaved, mux := DefaultTransport, DefaultServeMux\n")
		b.WriteString("\t\temptyMux := reflect.DeepEqual(*mux, ServeMux{})\n")
		b.WriteString("\t\treturn func() {\n")
		b.WriteString("\t\t\tDefaultServeMux = mux\n\t\t\tif emptyMux {\n\t\t\t\t*mux = ServeMux{}\n\t\t\t}\n")
		if init == "" {
			b.WriteString("\t\t\tDefaultTransport = saved\n")
		} else {
			b.WriteString("\t\t\tif saved != __ilDefaultTransport {\n\t\t\t\tDefaultTransport = saved\n\t\t\t\treturn\n\t\t\t}\n")
			b.WriteString("\t\t\tDefaultTransport = " + init + "\n")
		}
		b.WriteString("\t\t}\n\t})\n}\n")
	case "net/rpc":
		b.WriteString("// Code generated by interleave: net/rpc's state restored before each execution. DO NOT EDIT.\n\n")
		fmt.Fprintf(&b, "package rpc\n\nimport %s %q\n\n", engineName, enginePath)
		b.WriteString("func init() {\n\t" + engineName + ".RegisterState(func() func() {\n")
		b.WriteString("\t\tsaved := DefaultServer\n\t\tvar names, services []any\n")
		b.WriteString("\t\tsaved.serviceMap.Range(func(k, v any) bool {\n\t\t\tnames, services = append(names, k), append(services, v)\n\t\t\treturn true\n\t\t})\n")
		b.WriteString("\t\treturn func() {\n\t\t\tDefaultServer = saved\n\t\t\tsaved.serviceMap.Clear()\n")
		b.WriteString("\t\t\tfor i := range names {\n\t\t\t\tsaved.serviceMap.Store(names[i], services[i])\n\t\t\t}\n\t\t}\n\t})\n}\n")
	default:
		return nil
	}
	return []byte(b.String())
}

// defaultTransportInit returns the source text of the initializer of net/http's
// DefaultTransport, given the package; "" when it is not found.
func defaultTransportInit(p *packages.Package) string {
	for i, f := range p.Syntax {
		if i >= len(p.CompiledGoFiles) {
			break
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				if len(vs.Names) != 1 || vs.Names[0].Name != "DefaultTransport" || len(vs.Values) != 1 {
					continue
				}
				src, err := os.ReadFile(p.CompiledGoFiles[i])
				if err != nil {
					return ""
				}
				file := p.Fset.File(f.Pos())
				return string(src[file.Offset(vs.Values[0].Pos()):file.Offset(vs.Values[0].End())])
			}
		}
	}
	return ""
}
