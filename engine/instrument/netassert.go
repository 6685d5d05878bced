package instrument

// Connections that must stay real; a package that has one of these keeps its net.Listen
// and net.Dial calls real (each reported as a problem), as they were before the virtual
// network:
//
//   - A virtual connection or listener (package engine/vnet) is a net.Conn or net.Listener
//     of its own type: a program that asserts one to *net.TCPConn or *net.TCPListener without
//     the comma-ok form would panic under the engine where it runs natively. (The comma-ok
//     form and type switches are fine: they take the other branch, as for any connection
//     that is not TCP.)
//   - A virtual connection is used only by goroutines the engine runs, and dialed only by
//     instrumented code. A package that imports net/http or net/rpc (whose servers serve each
//     connection in a goroutine of their own, and whose clients dial from uninstrumented
//     code), or a package of a module that is not instrumented and uses package net itself
//     (a server or client library), could hand it a listener to serve or an address to dial:
//     it would find a connection it cannot use, a failure natively absent.

import (
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// netServers returns why p's connections must stay real because of what it imports ("" when
// they need not): net/http or net/rpc when they are not instrumented themselves (stdlib.go),
// or a package that is not instrumented (instrumented says which are) and imports package
// net.
func netServers(p *packages.Package, instrumented func(*packages.Package) bool) string {
	for _, path := range slices.Sorted(maps.Keys(p.Imports)) {
		q := p.Imports[path]
		if serverImport(path) && !instrumented(q) && !passiveServerPart(path) {
			return "the package imports " + path + ", whose goroutines the engine does not run"
		}
		if q.Module != nil && !instrumented(q) {
			if _, ok := q.Imports["net"]; ok {
				return "the package imports " + path + ", which is not instrumented and uses package net"
			}
		}
	}
	return ""
}

// tcpAssertion returns why the connections of the package whose types are info must stay
// real ("" when they need not): its first type assertion to *net.TCPConn, *net.TCPListener,
// *net.UnixConn or *net.UnixListener that panics when it fails.
func tcpAssertion(fset *token.FileSet, info *types.Info) string {
	if info == nil {
		return ""
	}
	first, kind := token.NoPos, ""
	for e, tv := range info.Types {
		ta, ok := e.(*ast.TypeAssertExpr)
		if !ok || ta.Type == nil {
			continue
		}
		if _, commaOK := tv.Type.(*types.Tuple); commaOK || !tcpType(tv.Type) {
			continue
		}
		if first == token.NoPos || ta.Pos() < first {
			first, kind = ta.Pos(), "TCP"
			if name := tv.Type.(*types.Pointer).Elem().(*types.Named).Obj().Name(); strings.HasPrefix(name, "Unix") {
				kind = "Unix"
			}
		}
	}
	if first == token.NoPos {
		return ""
	}
	return "the package asserts a connection to a *net." + kind + " type at " + fset.Position(first).String()
}

// tcpType reports whether t is *net.TCPConn, *net.TCPListener, *net.UnixConn or
// *net.UnixListener: a virtual connection or listener is none of them.
func tcpType(t types.Type) bool {
	p, ok := t.(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := p.Elem().(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "net" {
		return false
	}
	switch n.Obj().Name() {
	case "TCPConn", "TCPListener", "UnixConn", "UnixListener":
		return true
	}
	return false
}

// keepNet reports whether sp, the replacement of fn at p, is the virtual network's while the
// package's connections must stay real; it reports the call as a problem then.
func (r *fileRewriter) keepNet(sp special, p token.Pos, fn *types.Func) bool {
	if !sp.vnet {
		return false
	}
	why := r.realNet
	if why == "" && sp.fn != "Pipe" {
		why = r.tcpReal
	}
	if why == "" {
		return false
	}
	name := sp.fn
	if fn != nil {
		name = fn.FullName()
	}
	r.problem(p, "%s stays real, outside the engine: %s", name, why)
	return true
}
