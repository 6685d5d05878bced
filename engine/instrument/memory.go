package instrument

// Reads and writes of shared memory in expressions: each becomes an engine access before
// the operation, keeping Go's order of evaluation.

import (
	"go/ast"
	"go/token"
	"go/types"
)

// rv walks e evaluated for its value.
func (r *fileRewriter) rv(e ast.Expr) {
	switch x := e.(type) {
	case nil:
	case *ast.Ident:
		if r.sharedVar(x) {
			r.set(x, func() string { return r.eng("Load") + "(&" + x.Name + ", " + r.pos(x.Pos()) + ")" })
		} else if sp, ok := r.specialFunc(x); ok {
			r.funcValue(x, sp)
		}
	case *ast.ParenExpr:
		r.rv(x.X)
	case *ast.SelectorExpr:
		sel, ok := r.info.Selections[x]
		if !ok {
			if sp, ok := r.specialFunc(x); ok {
				r.funcValue(x, sp)
			} else if r.sharedVar(x.Sel) {
				r.set(x, func() string { return r.eng("Load") + "(&" + r.orig(x) + ", " + r.pos(x.Sel.Pos()) + ")" })
			}
			return
		}
		switch sel.Kind() {
		case types.FieldVal:
			r.fieldOperand(x)
			if r.isShared(x) {
				r.load(x, x.Sel.Pos())
			}
		case types.MethodVal:
			r.methodValue(x, sel)
		case types.MethodExpr:
			r.methodExpr(x, sel, x.Sel.Pos())
		}
	case *ast.IndexExpr:
		r.index(x, true)
	case *ast.IndexListExpr:
		// A generic instantiation: types only.
		if sp, ok := r.specialFunc(x); ok {
			r.funcValue(x, sp)
		}
	case *ast.StarExpr:
		if tv, ok := r.info.Types[x]; ok && tv.IsType() {
			return
		}
		r.rv(x.X)
		r.set(x, func() string { return r.eng("Load") + "(" + r.text(x.X) + ", " + r.pos(x.Star) + ")" })
	case *ast.UnaryExpr:
		switch x.Op {
		case token.AND:
			r.addr(x.X)
		case token.ARROW:
			r.rv(x.X)
			r.set(x, func() string { return r.eng("Recv") + "(" + r.text(x.X) + ", " + r.pos(x.OpPos) + ")" })
		default:
			r.rv(x.X)
		}
	case *ast.BinaryExpr:
		r.rv(x.X)
		r.rv(x.Y)
	case *ast.CallExpr:
		r.call(x)
	case *ast.FuncLit:
		r.funcBody(x.Type, x.Body)
	case *ast.CompositeLit:
		_, isStruct := r.under(x).(*types.Struct)
		for _, el := range x.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				if !isStruct {
					r.rv(kv.Key)
				}
				r.rv(kv.Value)
			} else {
				r.rv(el)
			}
		}
	case *ast.SliceExpr:
		if _, ok := r.under(x.X).(*types.Array); ok {
			r.addr(x.X)
		} else {
			r.rv(x.X)
		}
		r.rv(x.Low)
		r.rv(x.High)
		r.rv(x.Max)
	case *ast.TypeAssertExpr:
		r.rv(x.X)
	case *ast.KeyValueExpr:
		r.rv(x.Key)
		r.rv(x.Value)
	}
}

// load replaces the addressable shared expression e by a Load of it.
func (r *fileRewriter) load(e ast.Expr, p token.Pos) {
	r.wrap(e, func(inner string) string { return r.eng("Load") + "(&" + inner + ", " + r.pos(p) + ")" })
}

// fieldOperand walks the operand of a field selection: the pointer it goes through is read,
// a struct value is part of the same location.
func (r *fileRewriter) fieldOperand(x *ast.SelectorExpr) {
	if _, ok := r.under(x.X).(*types.Pointer); ok {
		r.rv(x.X)
	} else {
		r.addr(x.X)
	}
}

func (r *fileRewriter) index(x *ast.IndexExpr, value bool) {
	if r.isInstance(x.X) {
		if sp, ok := r.specialFunc(x); ok && value {
			r.funcValue(x, sp) // rand.N[int]
		}
		return
	}
	switch t := r.under(x.X).(type) {
	case *types.Map:
		r.rv(x.X)
		r.rv(x.Index)
		if value && !r.syncOnly {
			r.set(x, func() string {
				return r.eng("MapLoad") + "(" + r.text(x.X) + ", " + r.conv(r.text(x.Index), r.typeOf(x.Index), r.keyType(x.X)) + ", " + r.pos(x.Lbrack) + ")"
			})
		}
		return
	case *types.Slice:
		r.rv(x.X)
	case *types.Pointer:
		r.rv(x.X)
		if _, ok := t.Elem().Underlying().(*types.Array); !ok {
			r.rv(x.Index)
			return
		}
	case *types.Array:
		if r.isShared(x.X) {
			r.addr(x.X)
		} else {
			r.rv(x.X)
		}
	default:
		r.rv(x.X)
		r.rv(x.Index)
		return
	}
	r.rv(x.Index)
	if value && r.isShared(x) {
		r.load(x, x.Lbrack)
	}
}

// addr walks the addressable expression e whose address is taken (or which is assigned):
// its operands are evaluated, the location itself is not read.
func (r *fileRewriter) addr(e ast.Expr) {
	switch x := e.(type) {
	case *ast.Ident:
	case *ast.ParenExpr:
		r.addr(x.X)
	case *ast.SelectorExpr:
		if sel, ok := r.info.Selections[x]; ok && sel.Kind() == types.FieldVal {
			r.fieldOperand(x)
		}
	case *ast.IndexExpr:
		r.index(x, false)
	case *ast.StarExpr:
		r.rv(x.X)
	default:
		r.rv(e)
	}
}
