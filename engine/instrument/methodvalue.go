package instrument

// Specials used as values: method values (wg.Add), method expressions ((*sync.Mutex).Unlock)
// and function values (time.Sleep), made into function literals that call the engine.

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// methodValue handles x.M used as a value (not called), or as the function of a call that is
// not a special's. A test handle's method goes through the harness (handleMethod). The method value of a method the
// engine replaces (wg.Add, mu.TryLock, c.Add of an atomic.Int64, rw.RLocker, l.Lock of a
// sync.Locker, ...) becomes a function that calls the engine: the receiver is evaluated, and
// its address taken, once, where the method value is, as Go does.
func (r *fileRewriter) methodValue(x *ast.SelectorExpr, sel *types.Selection) {
	if r.handleMethod(x, sel) {
		return
	}
	fn, _ := sel.Obj().(*types.Func)
	if fn != nil {
		if sp, ok := specialOf(fn); ok && sp.method && !r.keepNet(sp, x.Pos(), fn) && r.boundSpecial(x, sel, fn, sp) {
			return
		}
		if (fn.Name() == "Lock" || fn.Name() == "Unlock") && types.IsInterface(sel.Recv()) && lockerLike(sel.Recv()) {
			// l.Lock of a sync.Locker: the interface value is evaluated (and a nil one
			// panics) when the method value is made, as Go does.
			r.rv(x.X)
			sp := specials["sync.Locker."+fn.Name()]
			l := r.temp("l")
			r.set(x, func() string {
				lit := r.engineLit(funcShape{}, func([]string) string { return r.specialName(sp) + "(" + l + ", " + r.pos(x.Sel.Pos()) + ")" })
				return "func() func() { " + l + " := " + r.text(x.X) + "; _ = " + l + "." + fn.Name() + "; return " + lit + " }()" + r.restore(x.End())
			})
			return
		}
	}
	if _, ok := r.under(x.X).(*types.Pointer); ok {
		r.rv(x.X)
		return
	}
	if sig, ok := sel.Obj().Type().(*types.Signature); ok && sig.Recv() != nil {
		if _, ptr := sig.Recv().Type().Underlying().(*types.Pointer); ptr {
			r.addr(x.X)
			return
		}
	}
	r.rv(x.X)
}

// boundSpecial rewrites the method value x.M of the method fn the engine replaces by sp, and
// reports whether it did: a method without parameters or results goes through engine.Bind,
// any other becomes
//
//	func() func(P) R { r := &x; return func(a P) R { return engine.F(r, a, pos) } }()
//
// (see engineLit for the frame of the inner function).
func (r *fileRewriter) boundSpecial(x *ast.SelectorExpr, sel *types.Selection, fn *types.Func, sp special) bool {
	if !r.promoted(x, sel) {
		return false
	}
	sig := fn.Type().(*types.Signature)
	p := r.pos(x.Sel.Pos())
	if sig.Params().Len() == 0 && sig.Results().Len() == 0 {
		recv := r.receiver(x, sel)
		r.set(x, func() string {
			return r.eng("Bind") + "(" + recv() + ", " + r.specialName(sp) + ", " + p + ")"
		})
		return true
	}
	sh, ok := r.shape(r.typeOf(x))
	if !ok {
		r.problem(x.Pos(), "method value %s is not instrumented: its parameter or result types cannot be named here", r.orig(x))
		return false
	}
	recv := r.receiver(x, sel)
	rt := r.temp("r")
	r.set(x, func() string {
		lit := r.engineLit(sh, func(args []string) string {
			return r.specialName(sp) + "(" + strings.Join(append(append([]string{rt}, args...), p), ", ") + ")"
		})
		return "func() " + sh.typ() + " { " + rt + " := " + recv() + "; return " + lit + " }()" + r.restore(x.End())
	})
	return true
}

// methodExpr handles the method expression x = T.M, as a value or called (at p, the position
// the engine is given). The method expression of a method the engine replaces becomes a
// function literal that calls the engine with its first argument as the receiver:
// (*sync.Mutex).Unlock is func(m *sync.Mutex) { engine.Unlock(m, pos) }, (*Guarded).Lock
// (a promoted method) passes &g.Mutex. It reports whether it did.
func (r *fileRewriter) methodExpr(x *ast.SelectorExpr, sel *types.Selection, p token.Pos) bool {
	fn, _ := sel.Obj().(*types.Func)
	if fn == nil {
		return false
	}
	sp, ok := specialFor(fn, sel)
	if !ok || !(sp.method || sp.iface) || !r.promoted(x, sel) || r.keepNet(sp, x.Pos(), fn) {
		return false
	}
	sh, ok := r.shape(r.typeOf(x))
	if !ok || len(sh.params) == 0 {
		r.problem(x.Pos(), "method expression %s is not instrumented: its parameter or result types cannot be named here", r.orig(x))
		return false
	}
	path, isPtr, _ := r.recvPath(sel.Recv(), sel.Index())
	pos := r.pos(p)
	r.set(x, func() string {
		return r.engineLit(sh, func(args []string) string {
			recv := args[0]
			if sp.method {
				recv = recvText(recv, path, isPtr)
			}
			return r.specialName(sp) + "(" + strings.Join(append(append([]string{recv}, args[1:]...), pos), ", ") + ")"
		}) + r.restore(x.End())
	})
	return true
}

// A funcShape is the parameter and result types of a function as Go text of this file, with
// names for its parameters in a literal.
type funcShape struct {
	params, results, names []string
}

// shape is the shape of the function type t; false when t is variadic or a type cannot be
// named here.
func (r *fileRewriter) shape(t types.Type) (funcShape, bool) {
	sig, ok := t.(*types.Signature)
	if !ok || sig.Variadic() {
		return funcShape{}, false
	}
	var sh funcShape
	for i := 0; i < sig.Params().Len(); i++ {
		n, ok := r.typeName(sig.Params().At(i).Type())
		if !ok {
			return funcShape{}, false
		}
		sh.params = append(sh.params, n)
		sh.names = append(sh.names, r.temp("a"))
	}
	for i := 0; i < sig.Results().Len(); i++ {
		n, ok := r.typeName(sig.Results().At(i).Type())
		if !ok {
			return funcShape{}, false
		}
		sh.results = append(sh.results, n)
	}
	return sh, true
}

func (sh funcShape) resultText() string {
	switch len(sh.results) {
	case 0:
		return ""
	case 1:
		return " " + sh.results[0]
	}
	return " (" + strings.Join(sh.results, ", ") + ")"
}

// typ is the function type.
func (sh funcShape) typ() string {
	return "func(" + strings.Join(sh.params, ", ") + ")" + sh.resultText()
}

// engineLit is a function literal of the shape sh whose body returns call(its parameters).
// Go calls a method value or a promoted method expression through a wrapper of its own,
// whose frame is at <autogenerated>:1; the body of the literal is given that position too,
// so that a panic in the engine function (wg.Add of a negative counter) is at the call of
// the value in the stack, not at the line of the method value. The caller restores the
// position after the text (restore).
func (r *fileRewriter) engineLit(sh funcShape, call func(args []string) string) string {
	params := make([]string, len(sh.params))
	for i, t := range sh.params {
		params[i] = sh.names[i] + " " + t
	}
	ret := ""
	if len(sh.results) > 0 {
		ret = "return "
	}
	return "func(" + strings.Join(params, ", ") + ")" + sh.resultText() + " { /*line <autogenerated>:1*/ " + ret + call(sh.names) + " }"
}
