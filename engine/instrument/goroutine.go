package instrument

// go statements: the function and its arguments are evaluated at the go, and the goroutine
// is started by the engine.

import (
	"go/ast"
	"go/types"
	"strings"
)

// goStmt rewrites go f(args) to engine.Go with the function value and the arguments evaluated
// at the go statement, as Go does.
func (r *fileRewriter) goStmt(s *ast.GoStmt) {
	c := s.Call
	fun := unparen(c.Fun)
	var names []string
	var initFns []func() string
	hoist := func(prefix string, f func() string) string {
		n := r.temp(prefix)
		names = append(names, n)
		initFns = append(initFns, f)
		return n
	}
	var funText func() string
	fn, sel, sx := r.callee(c.Fun)
	// A special (go wg.Done(), go time.Sleep(d), go mu.Unlock()) becomes the engine call in
	// the new goroutine, with its receiver and arguments evaluated at the go statement.
	var spec *special
	var specRecv string
	promotedExpr := false
	if ms, ok := r.isPromotedExpr(sx); ok && fn != nil {
		if _, ok := specialOf(fn); ok {
			// go (*Guarded).Lock(&g): the method expression's function.
			promotedExpr = true
			r.methodExpr(sx, ms, c.Pos())
			funText = func() string { return r.text(c.Fun) }
		}
	}
	if fn != nil && !isFuncLit(fun) && !promotedExpr {
		sp, ok := specialFor(fn, sel)
		if ok && sel != nil && sp.method && !r.promoted(sx, sel) {
			ok = false
		}
		if ok && r.keepNet(sp, c.Pos(), fn) {
			ok = false
		}
		if ok && c.Ellipsis.IsValid() {
			r.problem(s.Pos(), "go statement calling %s with ... is not instrumented", fn.FullName())
			r.rv(c.Fun)
			r.args(c.Args)
			return
		}
		if ok {
			spec = &sp
			if sel != nil {
				var recv func() string
				if sp.iface {
					r.rv(sx.X)
					recv = func() string { return r.text(sx.X) }
				} else {
					recv = r.receiver(sx, sel)
				}
				specRecv = hoist("r", recv)
			}
			funText = func() string { return r.specialName(sp) + r.typeArgs(c.Fun) }
		}
	}
	if id, ok := fun.(*ast.Ident); ok && len(c.Args) == 1 {
		if b, ok := r.info.Uses[id].(*types.Builtin); ok && b.Name() == "close" {
			spec = &special{fn: "Close"} // go close(ch)
			funText = func() string { return r.eng("Close") }
		}
	}
	switch {
	case spec != nil, promotedExpr:
	case isFuncLit(fun):
		r.rv(fun)
		funText = func() string { return r.text(c.Fun) }
	case fn != nil && sel == nil:
		// A function, not a value: nothing to evaluate.
		funText = func() string { return r.orig(c.Fun) }
	case sel != nil:
		var recv func() string
		sig := fn.Type().(*types.Signature)
		_, xPtr := r.under(sx.X).(*types.Pointer)
		_, mPtr := sig.Recv().Type().Underlying().(*types.Pointer)
		if mPtr && !xPtr && !types.IsInterface(sel.Recv()) {
			r.addr(sx.X)
			recv = func() string { return "&" + r.text(sx.X) }
		} else {
			r.rv(sx.X)
			recv = func() string { return r.text(sx.X) }
		}
		n := hoist("r", recv)
		funText = func() string { return n + "." + sx.Sel.Name }
	case r.isBuiltin(fun):
		// go panic(v), go println(...), go delete(m, k), ...: the builtin is called in the
		// new goroutine with its arguments evaluated at the go statement. (A panic there
		// is a panic of that goroutine, not a deadlock of the others.)
		name := fun.(*ast.Ident).Name
		switch name {
		case "delete", "copy", "clear":
			r.problem(s.Pos(), "the memory access of go %s(...) is neither a scheduling point nor checked for races", name)
		}
		funText = func() string { return name }
	default:
		r.rv(c.Fun)
		n := hoist("f", func() string { return r.text(c.Fun) })
		funText = func() string { return n }
	}
	argText := make([]func() string, len(c.Args))
	for i, a := range c.Args {
		a := a
		r.rv(a)
		if r.isConst(a) || r.isNil(a) {
			argText[i] = func() string { return r.text(a) }
			continue
		}
		if r.isUntyped(a) {
			r.problem(a.Pos(), "untyped argument of a go statement is evaluated when the goroutine starts")
			argText[i] = func() string { return r.text(a) }
			continue
		}
		n := hoist("a", func() string { return r.text(a) })
		argText[i] = func() string { return n }
	}
	r.set(s, func() string {
		var sb strings.Builder
		sb.WriteString("{ ")
		if len(names) > 0 {
			vals := make([]string, len(initFns))
			for i, f := range initFns {
				vals[i] = f()
			}
			sb.WriteString(strings.Join(names, ", ") + " := " + strings.Join(vals, ", ") + "; ")
		}
		args := make([]string, len(argText))
		for i, f := range argText {
			args[i] = f()
		}
		ell := ""
		if c.Ellipsis.IsValid() {
			ell = "..."
		}
		if spec != nil {
			if specRecv != "" {
				args = append([]string{specRecv}, args...)
			}
			if !spec.noPos {
				args = append(args, r.pos(c.Pos()))
			}
		}
		sb.WriteString(r.eng("Go") + "(func() { " + funText() + "(" + strings.Join(args, ", ") + ell + ") }, " + r.pos(s.Go) + ") }")
		return sb.String()
	})
}

// isBuiltin reports whether e names a builtin function (not shadowed).
func (r *fileRewriter) isBuiltin(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	_, ok = r.info.Uses[id].(*types.Builtin)
	return ok
}

func isFuncLit(e ast.Expr) bool {
	_, ok := e.(*ast.FuncLit)
	return ok
}
