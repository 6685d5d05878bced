package instrument

// Assignments to shared memory: single, compound, tuple and redeclaring, with the operands
// evaluated in Go's order before any assignment.

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

func (r *fileRewriter) assign(s *ast.AssignStmt, simple bool) {
	if s.Tok == token.DEFINE {
		if len(s.Lhs) == 2 && len(s.Rhs) == 1 {
			r.commaOk(s.Rhs[0])
		} else {
			for _, e := range s.Rhs {
				r.rv(e)
			}
		}
		r.redeclare(s, simple)
		return
	}
	if s.Tok != token.ASSIGN {
		op := strings.TrimSuffix(s.Tok.String(), "=")
		r.opAssign(s, s.Lhs[0], op, s.Rhs[0], simple)
		return
	}
	if len(s.Lhs) == 1 && len(s.Rhs) == 1 {
		r.single(s, s.Lhs[0], s.Rhs[0], simple)
		return
	}
	instrumented := false
	for _, l := range s.Lhs {
		if _, m := r.isMapIndex(l); m || (!isBlank(l) && r.isShared(l)) {
			instrumented = true
		}
	}
	if !instrumented {
		for _, l := range s.Lhs {
			r.addr(l)
		}
		if len(s.Rhs) == 1 {
			r.commaOk(s.Rhs[0])
		} else {
			for _, e := range s.Rhs {
				r.rv(e)
			}
		}
		return
	}
	r.multiAssign(s, simple)
}

// redeclare rewrites a short variable declaration that assigns a shared variable it does not
// declare (a, b := 2, 3 where a is declared before and captured): a temporary takes a's place
// in the declaration, and a Store of it to a follows the statement. The declared variables
// are new: no other goroutine sees them assigned before a. A right side that takes its type
// from a (see contextTyped) is converted to a's type, as the assignment would.
func (r *fileRewriter) redeclare(s *ast.AssignStmt, simple bool) {
	type store struct {
		id    *ast.Ident
		tmp   string
		vtype types.Type
	}
	var stores []store
	for i, l := range s.Lhs {
		id, ok := l.(*ast.Ident)
		if !ok || r.info.Defs[id] != nil || !r.sharedVar(id) {
			continue
		}
		if simple {
			// Unreachable: the := of an if, for or switch declares all its variables.
			r.problem(id.Pos(), "assignment to shared variable %s in := is not instrumented", id.Name)
			continue
		}
		target := r.typeOf(id)
		var vt types.Type
		if len(s.Rhs) == len(s.Lhs) {
			rhs := s.Rhs[i]
			vt = r.typeOf(rhs)
			if r.contextTyped(rhs) {
				name, ok := r.typeName(target)
				if !ok {
					r.problem(id.Pos(), "assignment to shared variable %s in := is not instrumented: its type cannot be named here", id.Name)
					continue
				}
				r.wrap(rhs, func(t string) string { return "(" + name + ")(" + t + ")" })
				vt = target
			}
		} else if tu, ok := r.typeOf(s.Rhs[0]).(*types.Tuple); ok && i < tu.Len() {
			vt = tu.At(i).Type()
		}
		tmp := r.temp("v")
		r.set(id, func() string { return tmp })
		stores = append(stores, store{id, tmp, vt})
	}
	if len(stores) == 0 {
		return
	}
	r.addEdit(s.End(), s.End(), func() string {
		out := ""
		for _, st := range stores {
			out += "; " + r.eng("Store") + "(&" + st.id.Name + ", " + r.conv(st.tmp, st.vtype, r.typeOf(st.id)) + ", " + r.pos(st.id.Pos()) + ")"
		}
		return out
	})
}

// contextTyped reports whether e may be an expression whose type comes from its context: an
// untyped constant or nil, a comparison, a shift of an untyped constant, or an operation on
// such. go/types records the type the context gives it; in a new variable of its own it would
// have its default type instead (n, s := 1<<40, "" where n is an int64 declared before).
func (r *fileRewriter) contextTyped(e ast.Expr) bool {
	if r.isConst(e) || r.isNil(e) || r.isUntyped(e) {
		return true
	}
	switch x := unparen(e).(type) {
	case *ast.BinaryExpr:
		switch x.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			return true
		case token.SHL, token.SHR:
			return r.contextTyped(x.X)
		}
		return r.contextTyped(x.X) && r.contextTyped(x.Y)
	case *ast.UnaryExpr:
		return x.Op != token.ARROW && x.Op != token.AND && r.contextTyped(x.X)
	}
	return false
}

// assignText is the statement that assigns v, the text of a value of type vt, to the
// location l (walked with addr): a MapStore to a map index, a Store to shared memory, a plain
// assignment otherwise; lhs is the text of l.
func (r *fileRewriter) assignText(l ast.Expr, lhs func() string, v string, vt types.Type) string {
	if ix, ok := r.isMapIndex(l); ok {
		return r.eng("MapStore") + "(" + r.text(ix.X) + ", " + r.conv(r.text(ix.Index), r.typeOf(ix.Index), r.keyType(ix.X)) + ", " + r.conv(v, vt, r.elemType(ix.X)) + ", " + r.pos(ix.Lbrack) + ")"
	}
	if r.isShared(l) {
		return r.eng("Store") + "(&" + lhs() + ", " + r.conv(v, vt, r.typeOf(l)) + ", " + r.pos(l.Pos()) + ")"
	}
	return lhs() + " = " + v
}

// replaceBy makes e's text name, and returns the function of e's own rewritten text.
func (r *fileRewriter) replaceBy(e ast.Expr, name string) func() string {
	prev := r.repl[e]
	r.set(e, func() string { return name })
	return func() string {
		if prev != nil {
			return prev()
		}
		return r.inner(e)
	}
}

// single rewrites lhs = rhs.
func (r *fileRewriter) single(s *ast.AssignStmt, lhs, rhs ast.Expr, simple bool) {
	if isBlank(lhs) {
		r.rv(rhs)
		return
	}
	if ix, ok := r.isMapIndex(lhs); ok {
		r.rv(ix.X)
		r.rv(ix.Index)
		r.rv(rhs)
		r.set(s, func() string {
			return r.eng("MapStore") + "(" + r.text(ix.X) + ", " + r.conv(r.text(ix.Index), r.typeOf(ix.Index), r.keyType(ix.X)) + ", " + r.conv(r.text(rhs), r.typeOf(rhs), r.elemType(ix.X)) + ", " + r.pos(ix.Lbrack) + ")"
		})
		return
	}
	if !r.isShared(lhs) {
		r.addr(lhs)
		r.rv(rhs)
		return
	}
	r.addr(lhs)
	r.rv(rhs)
	p := r.pos(lhs.Pos())
	if r.canPanic(lhs) && r.hasEffects(rhs) && !r.isUntyped(rhs) {
		// Go evaluates the right side before the left side's address can panic (nil
		// pointer, index out of range): keep that order with a temporary. The calls of the
		// left side's operands come before the right side's, in temporaries too.
		hoists := r.hoistCalls(lhs)
		v := r.temp("v")
		r.set(s, func() string {
			body := ""
			for _, h := range hoists {
				body += h()
			}
			body += v + " := " + r.text(rhs) + "; " + r.eng("Store") + "(&" + r.text(lhs) + ", " + r.conv(v, r.typeOf(rhs), r.typeOf(lhs)) + ", " + p + ")"
			if simple {
				return "func() { " + body + " }()"
			}
			return "{ " + body + " }"
		})
		return
	}
	r.set(s, func() string {
		return r.eng("Store") + "(&" + r.text(lhs) + ", " + r.conv(r.text(rhs), r.typeOf(rhs), r.typeOf(lhs)) + ", " + p + ")"
	})
}

// hoistCalls moves the operands with calls of the location lhs (a slice, map or array pointer
// and its index, the pointer of a field or indirection) into temporaries, and returns the
// declarations of the temporaries, in order. An operand it cannot move is reported.
func (r *fileRewriter) hoistCalls(lhs ast.Expr) []func() string {
	if !r.hasEffects(lhs) {
		return nil
	}
	return r.hoistOperands(lhs, r.hasEffects)
}

// hoistOperands is hoistCalls for the operands for which need is true.
func (r *fileRewriter) hoistOperands(lhs ast.Expr, need func(ast.Node) bool) []func() string {
	var out []func() string
	hoist := func(e ast.Expr) {
		if r.isConst(e) || !need(e) {
			return
		}
		name := r.temp("l")
		prev := r.repl[e]
		out = append(out, func() string {
			if prev != nil {
				return name + " := " + prev() + "; "
			}
			return name + " := " + r.inner(e) + "; "
		})
		r.set(e, func() string { return name })
	}
	bad := false
	switch x := unparen(lhs).(type) {
	case *ast.IndexExpr:
		switch t := r.under(x.X).(type) {
		case *types.Slice, *types.Map:
			hoist(x.X)
		case *types.Pointer:
			if _, ok := t.Elem().Underlying().(*types.Array); !ok {
				bad = true
			}
			hoist(x.X)
		default:
			out = append(out, r.hoistOperands(x.X, need)...) // an array: its location
		}
		if !r.isUntyped(x.Index) {
			hoist(x.Index)
		} else {
			bad = bad || (!r.isConst(x.Index) && need(x.Index))
		}
	case *ast.SelectorExpr:
		if _, ok := r.under(x.X).(*types.Pointer); ok {
			hoist(x.X)
		} else {
			out = append(out, r.hoistOperands(x.X, need)...) // a struct: its location
		}
	case *ast.StarExpr:
		hoist(x.X)
	case *ast.Ident:
	default:
		bad = need(lhs)
	}
	if bad {
		r.problem(lhs.Pos(), "the calls of %s are made after the right side's", r.orig(lhs))
	}
	return out
}

// opAssign rewrites lhs op= rhs and lhs++ / lhs-- (rhs nil). The location is computed once,
// as Go does, and a right side with calls is evaluated first (as gc does: x += f() reads x
// after f returns), after the calls of the location's operands (m[key()] += f() calls key
// first: they go into temporaries).
func (r *fileRewriter) opAssign(s ast.Stmt, lhs ast.Expr, op string, rhs ast.Expr, simple bool) {
	v := ""
	if rhs != nil && r.hasEffects(rhs) && !r.isUntyped(rhs) {
		v = r.temp("v")
	}
	rhsText := func() string {
		if rhs == nil {
			return "1"
		}
		if v != "" {
			return v
		}
		return "(" + r.text(rhs) + ")"
	}
	block := func(pre, body string) string {
		if v != "" {
			body = v + " := " + r.text(rhs) + "; " + body
		}
		body = pre + body
		if simple {
			return "func() { " + body + " }()"
		}
		return "{ " + body + " }"
	}
	if rhs != nil {
		r.rv(rhs)
	}
	if ix, ok := r.isMapIndex(lhs); ok {
		r.rv(ix.X)
		r.rv(ix.Index)
		if r.hasNewline(ix) {
			r.problem(lhs.Pos(), "compound assignment to a location that spans lines is not instrumented")
			return
		}
		calls := r.hasEffects(ix.X) || r.hasEffects(ix.Index)
		p := r.pos(ix.Lbrack)
		m := r.temp("m")
		k := r.temp("k")
		r.set(s, func() string {
			head := m + " := " + r.text(ix.X) + "; "
			key := r.conv(r.text(ix.Index), r.typeOf(ix.Index), r.keyType(ix.X))
			if r.isConst(ix.Index) || r.isNil(ix.Index) {
				key = "(" + key + ")"
			} else {
				head += k + " := " + key + "; "
				key = k
			}
			store := r.eng("MapStore") + "(" + m + ", " + key + ", " + r.eng("MapLoad") + "(" + m + ", " + key + ", " + p + ") " + op + " " + rhsText() + ", " + p + ")"
			if calls {
				return block(head, store)
			}
			return block("", head+store)
		})
		return
	}
	r.addr(lhs)
	if !r.isShared(lhs) {
		return
	}
	if r.hasNewline(lhs) {
		r.problem(lhs.Pos(), "compound assignment to a location that spans lines is not instrumented")
		return
	}
	hoists := r.hoistCalls(lhs)
	p := r.pos(lhs.Pos())
	a := r.temp("p")
	r.set(s, func() string {
		pre := ""
		for _, h := range hoists {
			pre += h()
		}
		return block(pre, a+" := &"+r.text(lhs)+"; "+r.eng("Store")+"("+a+", "+r.eng("Load")+"("+a+", "+p+") "+op+" "+rhsText()+", "+p+")")
	})
}

// multiAssign rewrites a tuple assignment with a shared or map left side: the calls of the
// left side's operands and the right sides into temporaries, then the stores from left to
// right, as Go's two phases do. In the init or post statement of a for, if or switch, the
// block is a function literal called in place.
func (r *fileRewriter) multiAssign(s *ast.AssignStmt, simple bool) {
	bad := ""
	// The operands of the left side's index expressions and indirections are evaluated
	// before any assignment (Go's first phase): those with calls or that read a variable
	// the statement assigns (i, s[i] = 1, 2) go into temporaries first.
	assigned := map[types.Object]bool{}
	for _, l := range s.Lhs {
		if id, ok := unparen(l).(*ast.Ident); ok && r.info.Uses[id] != nil {
			assigned[r.info.Uses[id]] = true
		}
	}
	need := func(e ast.Node) bool {
		found := r.hasEffects(e)
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && assigned[r.info.Uses[id]] {
				found = true
			}
			_, lit := n.(*ast.FuncLit)
			return !found && !lit
		})
		return found
	}
	for _, l := range s.Lhs {
		if _, ok := unparen(l).(*ast.Ident); !ok && need(l) && r.hasNewline(l) {
			bad = "a left side whose operands are evaluated first spans lines"
		}
	}
	// A right side that takes its type from its left side is converted to it in its
	// temporary.
	convs := make([]string, len(s.Rhs))
	if len(s.Rhs) == len(s.Lhs) {
		for i, e := range s.Rhs {
			if r.isConst(e) || r.isNil(e) || isBlank(s.Lhs[i]) || !r.contextTyped(e) {
				continue
			}
			t := r.typeOf(s.Lhs[i])
			if ix, ok := r.isMapIndex(s.Lhs[i]); ok {
				t = r.elemType(ix.X)
			}
			name, ok := r.typeName(t)
			if !ok {
				bad = "a right side is untyped"
			}
			convs[i] = name
		}
	}
	for _, l := range s.Lhs {
		if ix, ok := r.isMapIndex(l); ok {
			r.rv(ix.X)
			r.rv(ix.Index)
		} else {
			r.addr(l)
		}
	}
	if len(s.Rhs) == 1 {
		r.commaOk(s.Rhs[0])
	} else {
		for _, e := range s.Rhs {
			r.rv(e)
		}
	}
	if bad != "" {
		r.problem(s.Pos(), "assignment is not instrumented: %s", bad)
		return
	}
	var hoists []func() string
	for _, l := range s.Lhs {
		hoists = append(hoists, r.hoistOperands(l, need)...)
	}
	names := make([]string, len(s.Lhs))
	for i, l := range s.Lhs {
		if isBlank(l) {
			names[i] = "_"
		} else {
			names[i] = r.temp("v")
		}
	}
	r.set(s, func() string {
		var sb strings.Builder
		if simple {
			sb.WriteString("func() { ")
		} else {
			sb.WriteString("{ ")
		}
		for _, h := range hoists {
			sb.WriteString(h())
		}
		values := make([]string, len(s.Lhs))
		vtypes := make([]types.Type, len(s.Lhs)) // the values' types, for conv
		if len(s.Rhs) == 1 {
			if tu, ok := r.typeOf(s.Rhs[0]).(*types.Tuple); ok {
				for i := 0; i < tu.Len() && i < len(vtypes); i++ {
					vtypes[i] = tu.At(i).Type()
				}
			}
		} else {
			for i, e := range s.Rhs {
				vtypes[i] = r.typeOf(e)
			}
		}
		var tnames, tvals []string
		if len(s.Rhs) == 1 {
			tnames, tvals = names, []string{r.text(s.Rhs[0])}
			copy(values, names)
		} else {
			for i, e := range s.Rhs {
				if r.isConst(e) || r.isNil(e) {
					values[i] = r.text(e)
					continue
				}
				if names[i] == "_" {
					tnames = append(tnames, "_")
				} else {
					tnames = append(tnames, names[i])
				}
				if convs[i] != "" {
					tvals = append(tvals, "("+convs[i]+")("+r.text(e)+")")
				} else {
					tvals = append(tvals, r.text(e))
				}
				values[i] = names[i]
			}
		}
		if len(tnames) > 0 {
			tok := " = " // all blank: nothing to declare
			for _, n := range tnames {
				if n != "_" {
					tok = " := "
				}
			}
			sb.WriteString(strings.Join(tnames, ", ") + tok + strings.Join(tvals, ", ") + "; ")
		}
		for i, l := range s.Lhs {
			if isBlank(l) {
				continue
			}
			if ix, ok := r.isMapIndex(l); ok {
				sb.WriteString(r.eng("MapStore") + "(" + r.text(ix.X) + ", " + r.conv(r.text(ix.Index), r.typeOf(ix.Index), r.keyType(ix.X)) + ", " + r.conv(values[i], vtypes[i], r.elemType(ix.X)) + ", " + r.pos(ix.Lbrack) + "); ")
			} else if r.isShared(l) {
				sb.WriteString(r.eng("Store") + "(&" + r.text(l) + ", " + r.conv(values[i], vtypes[i], r.typeOf(l)) + ", " + r.pos(l.Pos()) + "); ")
			} else {
				sb.WriteString(r.text(l) + " = " + values[i] + "; ")
			}
		}
		sb.WriteString("}")
		if simple {
			sb.WriteString("()")
		}
		return sb.String()
	})
}
