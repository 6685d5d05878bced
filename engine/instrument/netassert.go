package instrument

// Connections that must stay real. A virtual connection or listener (package engine/vnet)
// is a net.Conn or net.Listener of its own type: a program that asserts one to *net.TCPConn
// or *net.TCPListener without the comma-ok form would panic under the engine where it runs
// natively. A package that has such an assertion keeps its net.Listen and net.Dial calls real
// (each reported as a problem); the comma-ok form and type switches are fine (they take the
// other branch, as for any non-TCP connection).

import (
	"go/ast"
	"go/token"
	"go/types"
)

// tcpAssertion returns why the connections of the package whose types are info must stay
// real ("" when they need not): its first type assertion to *net.TCPConn or *net.TCPListener
// that panics when it fails.
func tcpAssertion(fset *token.FileSet, info *types.Info) string {
	if info == nil {
		return ""
	}
	first := token.NoPos
	for e, tv := range info.Types {
		ta, ok := e.(*ast.TypeAssertExpr)
		if !ok || ta.Type == nil {
			continue
		}
		if _, commaOK := tv.Type.(*types.Tuple); commaOK || !tcpType(tv.Type) {
			continue
		}
		if first == token.NoPos || ta.Pos() < first {
			first = ta.Pos()
		}
	}
	if first == token.NoPos {
		return ""
	}
	return "the package asserts a connection to a *net.TCP type at " + fset.Position(first).String()
}

// tcpType reports whether t is *net.TCPConn or *net.TCPListener.
func tcpType(t types.Type) bool {
	p, ok := t.(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := p.Elem().(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "net" {
		return false
	}
	return n.Obj().Name() == "TCPConn" || n.Obj().Name() == "TCPListener"
}

// keepNet reports whether sp, the replacement of fn at p, is the virtual network's while the
// package's connections must stay real; it reports the call as a problem then.
func (r *fileRewriter) keepNet(sp special, p token.Pos, fn *types.Func) bool {
	if !sp.vnet || r.realNet == "" {
		return false
	}
	name := sp.fn
	if fn != nil {
		name = fn.FullName()
	}
	r.problem(p, "%s stays real, outside the engine: %s", name, r.realNet)
	return true
}
