package instrument

// io.Pipe: rewritten into the engine's IOPipe, whose results are the engine's *PipeReader
// and *PipeWriter, not package io's (whose types are concrete and cannot be made to wait
// under the engine). The rewrite keeps the file compiling only where nothing needs package
// io's types: the call defines two new variables (r, w := io.Pipe(), or var r, w =
// io.Pipe()), and each use of them calls or takes a method, is passed, assigned, sent,
// returned or put in a composite literal as an interface, or is compared with nil. Any other
// io.Pipe stays the real one and is reported as a problem (its goroutines then wait outside
// the engine, as before).

import (
	"go/ast"
	"go/token"
	"go/types"
)

// isIOPipe reports whether fn is io.Pipe.
func isIOPipe(fn *types.Func) bool {
	return fn.Pkg() != nil && fn.Pkg().Path() == "io" && fn.Name() == "Pipe"
}

// ioPipe rewrites c, a call of io.Pipe, when its results' uses allow (see above), and reports
// a problem when not.
func (r *fileRewriter) ioPipe(c *ast.CallExpr) {
	if why := r.pipeUses(c); why != "" {
		r.problem(c.Pos(), "io.Pipe stays a real pipe, outside the engine: %s", why)
		r.rv(c.Fun)
		return
	}
	p := r.pos(c.Pos())
	r.set(c, func() string { return r.eng("IOPipe") + "(" + p + ")" })
}

// parentsOf maps every node of the file to its parent; made once per file.
func (r *fileRewriter) parentsOf() map[ast.Node]ast.Node {
	if r.parents != nil {
		return r.parents
	}
	r.parents = make(map[ast.Node]ast.Node)
	var stack []ast.Node
	ast.Inspect(r.file, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		if len(stack) > 0 {
			r.parents[n] = stack[len(stack)-1]
		}
		stack = append(stack, n)
		return true
	})
	return r.parents
}

// parent is n's parent, past parentheses.
func (r *fileRewriter) parent(n ast.Node) (ast.Node, ast.Node) {
	ps := r.parentsOf()
	p := ps[n]
	for {
		pe, ok := p.(*ast.ParenExpr)
		if !ok {
			return p, n
		}
		n, p = pe, ps[pe]
	}
}

// pipeUses says why the results of the io.Pipe call c cannot change type; "" when they can.
func (r *fileRewriter) pipeUses(c *ast.CallExpr) string {
	p, _ := r.parent(c)
	var names []*ast.Ident
	switch p := p.(type) {
	case *ast.AssignStmt:
		if p.Tok != token.DEFINE || len(p.Lhs) != 2 {
			return "its results are not defined as new variables"
		}
		for _, l := range p.Lhs {
			names = append(names, l.(*ast.Ident))
		}
	case *ast.ValueSpec:
		if p.Type != nil {
			return "its results are declared as *io.PipeReader and *io.PipeWriter"
		}
		names = p.Names
	default:
		return "its results are not defined as new variables"
	}
	vars := make(map[types.Object]bool)
	for _, id := range names {
		if id.Name == "_" {
			continue
		}
		obj := r.info.Defs[id]
		if obj == nil {
			return id.Name + " is not a new variable"
		}
		vars[obj] = true
	}
	for id, obj := range r.info.Uses {
		if !vars[obj] || id.Pos() < r.file.Pos() || id.Pos() > r.file.End() {
			continue
		}
		if !r.pipeUseOK(id) {
			return id.Name + " is used as " + types.TypeString(obj.Type(), nil) + " at " + r.fset.Position(id.Pos()).String()
		}
	}
	return ""
}

// pipeUseOK reports whether the use id of a pipe end would compile with the engine's type.
func (r *fileRewriter) pipeUseOK(id *ast.Ident) bool {
	p, n := r.parent(id)
	iface := func(t types.Type) bool {
		if _, tp := t.(*types.TypeParam); tp || t == nil {
			return false
		}
		return types.IsInterface(t)
	}
	switch p := p.(type) {
	case *ast.SelectorExpr:
		sel := r.info.Selections[p]
		return p.X == n && sel != nil && sel.Kind() == types.MethodVal
	case *ast.CallExpr:
		if tv, ok := r.info.Types[p.Fun]; ok && tv.IsType() {
			return iface(tv.Type) // a conversion
		}
		sig, ok := r.under(p.Fun).(*types.Signature)
		if !ok || p.Fun == n {
			return false
		}
		for i, a := range p.Args {
			if a != n {
				continue
			}
			params := sig.Params()
			switch {
			case sig.Variadic() && i >= params.Len()-1 && !p.Ellipsis.IsValid():
				return iface(params.At(params.Len() - 1).Type().(*types.Slice).Elem())
			case i < params.Len():
				return iface(params.At(i).Type())
			}
		}
	case *ast.AssignStmt:
		if p.Tok != token.ASSIGN || len(p.Lhs) != len(p.Rhs) {
			return false
		}
		for i, rhs := range p.Rhs {
			if rhs == n {
				return iface(r.typeOf(p.Lhs[i]))
			}
		}
	case *ast.ValueSpec:
		return p.Type != nil && iface(r.typeOf(p.Type))
	case *ast.SendStmt:
		if ch, ok := r.under(p.Chan).(*types.Chan); ok && p.Value == n {
			return iface(ch.Elem())
		}
	case *ast.BinaryExpr:
		other := p.X
		if other == n {
			other = p.Y
		}
		tv, ok := r.info.Types[other]
		return ok && tv.IsNil()
	case *ast.ReturnStmt:
		sig := r.enclosingSig(p)
		if sig == nil || sig.Results().Len() != len(p.Results) {
			return false
		}
		for i, e := range p.Results {
			if e == n {
				return iface(sig.Results().At(i).Type())
			}
		}
	case *ast.KeyValueExpr:
		lit, ok := r.parentsOf()[p].(*ast.CompositeLit)
		if !ok || p.Value != n {
			return false
		}
		switch t := deref(r.typeOf(lit)).Underlying().(type) {
		case *types.Struct:
			key, ok := p.Key.(*ast.Ident)
			if !ok {
				return false
			}
			for i := 0; i < t.NumFields(); i++ {
				if t.Field(i).Name() == key.Name {
					return iface(t.Field(i).Type())
				}
			}
		case *types.Map:
			return iface(t.Elem())
		case *types.Slice:
			return iface(t.Elem())
		case *types.Array:
			return iface(t.Elem())
		}
	case *ast.CompositeLit:
		switch t := deref(r.typeOf(p)).Underlying().(type) {
		case *types.Slice:
			return iface(t.Elem())
		case *types.Array:
			return iface(t.Elem())
		case *types.Struct:
			for i, e := range p.Elts {
				if e == n && i < t.NumFields() {
					return iface(t.Field(i).Type())
				}
			}
		}
	}
	return false
}

// deref is t's element type when t is a pointer, else t (Invalid for nil).
func deref(t types.Type) types.Type {
	if t == nil {
		return types.Typ[types.Invalid]
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// enclosingSig is the signature of the function whose body holds n.
func (r *fileRewriter) enclosingSig(n ast.Node) *types.Signature {
	ps := r.parentsOf()
	for p := ps[n]; p != nil; p = ps[p] {
		var ft *ast.FuncType
		switch f := p.(type) {
		case *ast.FuncLit:
			ft = f.Type
		case *ast.FuncDecl:
			ft = f.Type
		default:
			continue
		}
		sig, _ := r.typeOf(ft).(*types.Signature)
		if sig == nil {
			if fd, ok := p.(*ast.FuncDecl); ok {
				if fn, ok := r.info.Defs[fd.Name].(*types.Func); ok {
					sig, _ = fn.Type().(*types.Signature)
				}
			}
		}
		return sig
	}
	return nil
}
