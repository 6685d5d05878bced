package instrument

// Which memory is shared: variables whose address escapes to another goroutine, package
// variables, and what is reached through pointers, slices and maps.

import (
	"go/ast"
	"go/token"
	"go/types"
)

// findShared marks the local variables that other goroutines may reach: those captured by a
// function literal and those whose address is taken (explicitly, or by a pointer-receiver
// method call or slicing an array).
func (r *fileRewriter) findShared() {
	if r.syncOnly {
		return // no memory access is rewritten
	}
	var lits []*ast.FuncLit
	ast.Inspect(r.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			lits = append(lits, n)
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				r.markAddr(n.X)
			}
		case *ast.SliceExpr:
			if _, ok := r.under(n.X).(*types.Array); ok {
				r.markAddr(n.X)
			}
		case *ast.SelectorExpr:
			if sel, ok := r.info.Selections[n]; ok && sel.Kind() == types.MethodVal {
				if sig, ok := sel.Obj().Type().(*types.Signature); ok && sig.Recv() != nil {
					if _, isPtr := sig.Recv().Type().Underlying().(*types.Pointer); isPtr {
						if _, xPtr := r.under(n.X).(*types.Pointer); !xPtr {
							r.markAddr(n.X)
						}
					}
				}
			}
		}
		return true
	})
	for _, lit := range lits {
		ast.Inspect(lit.Body, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			v, ok := r.info.Uses[id].(*types.Var)
			if !ok || v.IsField() || r.isPkgVar(v) {
				return true
			}
			if v.Pos() < lit.Pos() || v.Pos() >= lit.End() {
				r.shared[v] = true
			}
			return true
		})
	}
}

func (r *fileRewriter) markAddr(e ast.Expr) {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.SelectorExpr:
			if sel, ok := r.info.Selections[x]; ok && sel.Kind() == types.FieldVal && !sel.Indirect() {
				e = x.X
				continue
			}
			return
		case *ast.IndexExpr:
			if _, ok := r.under(x.X).(*types.Array); ok {
				e = x.X
				continue
			}
			return
		case *ast.Ident:
			if v, ok := r.info.Uses[x].(*types.Var); ok && !r.isPkgVar(v) {
				r.shared[v] = true
			}
			return
		default:
			return
		}
	}
}

func (r *fileRewriter) isPkgVar(v *types.Var) bool {
	return v.Pkg() != nil && v.Parent() == v.Pkg().Scope()
}

// sharedVar reports whether id is a variable other goroutines may reach.
func (r *fileRewriter) sharedVar(id *ast.Ident) bool {
	v, ok := r.info.Uses[id].(*types.Var)
	if !ok || v.IsField() || id.Name == "_" || r.syncOnly {
		return false
	}
	return r.isPkgVar(v) || r.shared[v]
}

// isShared reports whether the addressable expression e denotes memory that other goroutines
// may reach.
func (r *fileRewriter) isShared(e ast.Expr) bool {
	if r.syncOnly {
		return false
	}
	switch x := e.(type) {
	case *ast.Ident:
		return r.sharedVar(x)
	case *ast.ParenExpr:
		return r.isShared(x.X)
	case *ast.SelectorExpr:
		if sel, ok := r.info.Selections[x]; ok {
			return sel.Kind() == types.FieldVal && (sel.Indirect() || r.isShared(x.X))
		}
		return r.sharedVar(x.Sel) // a qualified package variable
	case *ast.IndexExpr:
		switch t := r.under(x.X).(type) {
		case *types.Slice:
			return true
		case *types.Pointer:
			_, ok := t.Elem().Underlying().(*types.Array)
			return ok
		case *types.Array:
			return r.isShared(x.X)
		}
	case *ast.StarExpr:
		return true
	}
	return false
}

func (r *fileRewriter) isMapIndex(e ast.Expr) (*ast.IndexExpr, bool) {
	ix, ok := unparen(e).(*ast.IndexExpr)
	if !ok {
		return nil, false
	}
	m, ok := r.under(ix.X).(*types.Map)
	if ok && r.syncOnly {
		// Only the stores that number keys with no order of their own, so that a range
		// over the map takes the same order in every execution (engine.MapRange).
		ok = unorderedKey(m.Key())
	}
	return ix, ok
}

// unorderedKey reports whether the map key type t may hold values with no order that is the
// same in every execution: pointers, channels, interfaces, or arrays and structs of them.
func unorderedKey(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Pointer, *types.Chan, *types.Interface:
		return true
	case *types.Basic:
		return u.Kind() == types.UnsafePointer
	case *types.Array:
		return unorderedKey(u.Elem())
	case *types.Struct:
		for i := range u.NumFields() {
			if unorderedKey(u.Field(i).Type()) {
				return true
			}
		}
	}
	return false
}

// hasEffects reports whether evaluating e calls a function or receives from a channel: the
// operations whose order Go specifies.
func (r *fileRewriter) hasEffects(e ast.Node) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if tv, ok := r.info.Types[n.Fun]; ok && tv.IsType() {
				return true
			}
			found = true
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				found = true
			}
		}
		return !found
	})
	return found
}

// canPanic reports whether computing the address of the location e can panic.
func (r *fileRewriter) canPanic(e ast.Expr) bool {
	switch x := unparen(e).(type) {
	case *ast.Ident:
		return false
	case *ast.SelectorExpr:
		if sel, ok := r.info.Selections[x]; ok {
			return sel.Indirect() || r.canPanic(x.X)
		}
		return false
	}
	return true
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}
