package instrument

// Calls: of specials (on their receiver, promoted ones too) and of ordinary functions whose
// arguments are walked in Go's order.

import (
	"go/ast"
	"go/types"
	"strings"
)

// callee returns the function a call calls statically, with its selection for a method.
func (r *fileRewriter) callee(fun ast.Expr) (*types.Func, *types.Selection, *ast.SelectorExpr) {
	switch f := unparen(fun).(type) {
	case *ast.Ident:
		fn, _ := r.info.Uses[f].(*types.Func)
		return fn, nil, nil
	case *ast.SelectorExpr:
		if sel, ok := r.info.Selections[f]; ok {
			fn, _ := sel.Obj().(*types.Func)
			switch sel.Kind() {
			case types.MethodVal:
				return fn, sel, f
			case types.MethodExpr:
				return fn, nil, f // T.M(x, args): the receiver is the first argument
			}
			return nil, nil, nil
		}
		fn, _ := r.info.Uses[f.Sel].(*types.Func)
		return fn, nil, f
	case *ast.IndexExpr:
		return r.funcObj(f.X), nil, nil // an instantiation f[T](args)
	case *ast.IndexListExpr:
		return r.funcObj(f.X), nil, nil
	}
	return nil, nil, nil
}

// funcObj is the function e names: an identifier or a qualified identifier, or nil.
func (r *fileRewriter) funcObj(e ast.Expr) *types.Func {
	var fn *types.Func
	switch x := unparen(e).(type) {
	case *ast.Ident:
		fn, _ = r.info.Uses[x].(*types.Func)
	case *ast.SelectorExpr:
		if _, ok := r.info.Selections[x]; !ok {
			fn, _ = r.info.Uses[x.Sel].(*types.Func)
		}
	}
	return fn
}

// funcValue rewrites e, a function the engine replaces used as a value (sleep := time.Sleep,
// f := atomic.AddInt64, draw := rand.Intn, rand.N[int]), to a function literal that calls
// the engine function, as its call would (see engineLit for its frame).
func (r *fileRewriter) funcValue(e ast.Expr, sp special) {
	if sp.method || sp.iface || sp.vnet && r.keepNet(sp, e.Pos(), r.funcObj(e)) {
		return
	}
	sh, ok := r.shape(r.typeOf(e))
	if !ok {
		r.problem(e.Pos(), "function value %s is not instrumented: its parameter or result types cannot be named here", r.orig(e))
		return
	}
	p := r.pos(e.Pos())
	r.set(e, func() string {
		return r.engineLit(sh, func(args []string) string {
			if !sp.noPos {
				args = append(args, p)
			}
			return r.specialName(sp) + r.typeArgs(e) + "(" + strings.Join(args, ", ") + ")"
		}) + r.restore(e.End())
	})
}

// specialFunc returns the engine replacement of the function e names (f, pkg.F, or one of
// them instantiated) when e is not called.
func (r *fileRewriter) specialFunc(e ast.Expr) (special, bool) {
	switch x := e.(type) {
	case *ast.IndexExpr:
		e = x.X
	case *ast.IndexListExpr:
		e = x.X
	}
	fn := r.funcObj(e)
	if fn == nil {
		return special{}, false
	}
	return specialOf(fn)
}

// receiver walks the receiver of the method selection x.M and returns the text of the
// receiver to pass by address: x with the embedded fields of the promotion path, and "&" when
// that is not already a pointer. The caller has checked the path with promoted.
func (r *fileRewriter) receiver(x *ast.SelectorExpr, sel *types.Selection) func() string {
	if _, ok := r.under(x.X).(*types.Pointer); ok {
		r.rv(x.X)
	} else {
		r.addr(x.X)
	}
	path, isPtr, _ := r.recvPath(r.typeOf(x.X), sel.Index())
	return func() string { return recvText(r.text(x.X), path, isPtr) }
}

// recvText is the receiver to pass by address from the operand text x through the embedded
// fields path (see recvPath).
func recvText(x string, path []string, isPtr bool) string {
	if len(path) > 0 {
		x += "." + strings.Join(path, ".")
	}
	if isPtr {
		return x
	}
	return "&" + x
}

// recvPath is the path of embedded fields from a value of type t to the receiver of the
// method at the end of the selection index idx, and whether that receiver is a pointer. ok is
// false when the path cannot be written in this file: it goes through an unexported field of
// another package.
func (r *fileRewriter) recvPath(t types.Type, idx []int) (path []string, isPtr, ok bool) {
	for _, i := range idx[:len(idx)-1] {
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok {
			return nil, false, false
		}
		f := st.Field(i)
		if !f.Exported() && f.Pkg() != r.pkg {
			return nil, false, false
		}
		path = append(path, f.Name())
		t = f.Type()
	}
	_, isPtr = t.Underlying().(*types.Pointer)
	return path, isPtr, true
}

// promoted reports whether the receiver of the method selection x.M can be written in this
// file (see recvPath); it reports a problem when not.
func (r *fileRewriter) promoted(x *ast.SelectorExpr, sel *types.Selection) bool {
	t := r.typeOf(x.X)
	if sel.Kind() == types.MethodExpr {
		t = sel.Recv()
	}
	ok := t != nil
	if ok {
		_, _, ok = r.recvPath(t, sel.Index())
	}
	if !ok {
		r.problem(x.Pos(), "%s is promoted through an unexported field: not instrumented", r.orig(x))
		return false
	}
	return true
}

// isPromotedExpr reports whether sx is a method expression of a promoted method (whose
// receiver is not the first argument itself).
func (r *fileRewriter) isPromotedExpr(sx *ast.SelectorExpr) (*types.Selection, bool) {
	if sx == nil {
		return nil, false
	}
	sel, ok := r.info.Selections[sx]
	if !ok || sel.Kind() != types.MethodExpr {
		return nil, false
	}
	return sel, len(sel.Index()) > 1
}

func (r *fileRewriter) args(list []ast.Expr) func() []string {
	for _, a := range list {
		r.rv(a)
	}
	return func() []string {
		out := make([]string, len(list))
		for i, a := range list {
			out[i] = r.text(a)
		}
		return out
	}
}

func (r *fileRewriter) call(c *ast.CallExpr) {
	if tv, ok := r.info.Types[c.Fun]; ok && tv.IsType() {
		for _, a := range c.Args {
			r.rv(a)
		}
		return
	}
	if r.isConst(c) {
		return
	}
	fun := unparen(c.Fun)
	var builtin *types.Builtin
	switch f := fun.(type) {
	case *ast.Ident:
		builtin, _ = r.info.Uses[f].(*types.Builtin)
	case *ast.SelectorExpr:
		builtin, _ = r.info.Uses[f.Sel].(*types.Builtin)
	}
	if builtin != nil {
		r.builtin(c, builtin.Name())
		return
	}
	fn, sel, sx := r.callee(c.Fun)
	if fn != nil {
		if ms, promoted := r.isPromotedExpr(sx); promoted {
			// (*Guarded).Lock(&g): a call of the method expression's function, which
			// finds the receiver in its argument after the arguments are evaluated.
			if _, ok := specialOf(fn); ok {
				r.methodExpr(sx, ms, c.Pos())
				r.args(c.Args)
				return
			}
		}
		if sel == nil && isIOPipe(fn) {
			r.ioPipe(c)
			return
		}
		sp, ok := specialFor(fn, sel)
		if ok && (sel == nil || !sp.method || r.promoted(sx, sel)) && !r.keepNet(sp, c.Pos(), fn) {
			r.specialCall(c, sp, sel, sx)
			return
		}
	}
	r.rv(c.Fun)
	for _, a := range c.Args {
		r.rv(a)
	}
}

func (r *fileRewriter) specialCall(c *ast.CallExpr, sp special, sel *types.Selection, sx *ast.SelectorExpr) {
	var recv func() string
	switch {
	case sel == nil:
		// A function, or a method expression (*sync.Mutex).Lock(&mu) whose receiver is its
		// first argument.
	case sp.iface:
		r.rv(sx.X)
		recv = func() string { return r.text(sx.X) }
	case sp.method:
		recv = r.receiver(sx, sel)
	}
	if c.Ellipsis.IsValid() {
		r.problem(c.Pos(), "variadic call of %s is not instrumented", sp.fn)
		r.rv(c.Fun)
		r.args(c.Args)
		return
	}
	args := r.args(c.Args)
	r.set(c, func() string {
		var parts []string
		if recv != nil {
			parts = append(parts, recv())
		}
		parts = append(parts, args()...)
		if !sp.noPos {
			parts = append(parts, r.pos(c.Pos()))
		}
		return r.specialName(sp) + r.typeArgs(c.Fun) + "(" + strings.Join(parts, ", ") + ")"
	})
}
