package instrument

// range statements: over a channel (receives), over a map (engine.MapRange, a deterministic
// order), and the assignments of their variables.

import (
	"go/ast"
	"go/token"
	"go/types"
	"go/version"
	"strings"
)

// rangeStmt rewrites a range over a channel into receives, and a range over a map into a
// range over engine.MapRange, which produces the entries in an order that is the same in every
// execution (Go randomizes it) and reads the map at each one. MapRange is an iterator
// function, which a file may range over from Go 1.23 on: in a file of an older language
// version the range keeps Go's order and is only marked as a read of the map.
func (r *fileRewriter) rangeStmt(s *ast.RangeStmt) {
	switch r.under(s.X).(type) {
	case *types.Chan:
		r.rv(s.X)
		if s.Tok == token.ASSIGN && s.Key != nil {
			r.addr(s.Key)
		}
		c, ok := r.temp("c"), r.temp("ok")
		elem := r.elemType(s.X)
		p := r.pos(s.For)
		r.addEdit(s.For, s.Body.Lbrace+1, func() string {
			recv := r.eng("Recv2") + "(" + c + ", " + p + ")"
			head := "for " + c + " := " + r.text(s.X) + "; ; { "
			switch {
			case s.Key == nil || isBlank(s.Key):
				return head + "if _, " + ok + " := " + recv + "; !" + ok + " { break }; "
			case s.Tok == token.DEFINE:
				return head + r.text(s.Key) + ", " + ok + " := " + recv + "; if !" + ok + " { break }; "
			default:
				v := c + "v"
				return head + v + ", " + ok + " := " + recv + "; if !" + ok + " { break }; " + r.assignText(s.Key, func() string { return r.text(s.Key) }, v, elem) + "; "
			}
		})
		r.stmts(s.Body.List)
		return
	case *types.Map:
		r.rv(s.X)
		x := s.X
		fn := "MapRange"
		// The standard library's files (syncOnly) have no version of their own: the go
		// command compiles them at the toolchain's, which has range-over-func.
		if v := r.info.FileVersions[r.file]; (v == "" && !r.syncOnly) || (v != "" && version.Compare(v, "go1.23") < 0) {
			fn = "MapRead"
		}
		r.wrap(x, func(t string) string { return r.eng(fn) + "(" + t + ", " + r.pos(x.Pos()) + ")" })
	default:
		r.rv(s.X) // a local array is not shared: rv reads nothing of it

	}
	if s.Tok == token.ASSIGN {
		r.rangeAssign(s)
	} else if s.Tok == token.DEFINE && r.loopVarPerLoop() {
		r.rangeShared(s)
	}
	r.stmts(s.Body.List)
}

// loopVarPerLoop reports whether the file's language version is older than Go 1.22: a for
// loop's variables are then one variable per loop, written by every iteration.
func (r *fileRewriter) loopVarPerLoop() bool {
	v := r.info.FileVersions[r.file]
	return v != "" && version.Compare(v, "go1.22") < 0
}

// rangeShared makes the writes of a range clause's variables declared with := visible, in a
// file older than Go 1.22 where they are one variable per loop: for _, v := range x { where v
// is captured by a function literal or has its address taken becomes
// for _, v := range x { Store(&v, v); — the write the range clause made at the head of the
// iteration, recorded before the body, with no scheduling point in between, so that a
// goroutine started by an earlier iteration that reads v races with it, as it does in Go.
func (r *fileRewriter) rangeShared(s *ast.RangeStmt) {
	var stores []string
	for _, e := range []ast.Expr{s.Key, s.Value} {
		id, ok := e.(*ast.Ident)
		if !ok || id.Name == "_" {
			continue
		}
		if v, ok := r.info.Defs[id].(*types.Var); ok && r.shared[v] {
			stores = append(stores, r.eng("Store")+"(&"+id.Name+", "+id.Name+", "+r.pos(id.Pos())+"); ")
		}
	}
	if len(stores) == 0 {
		return
	}
	r.addEdit(s.Body.Lbrace+1, s.Body.Lbrace+1, func() string { return " " + strings.Join(stores, "") })
}

// rangeAssign rewrites the assignments of a range clause with = (not over a channel) when
// one of them is to shared memory or a map: for k, v = range x { becomes
// for t1, t2 := range x { Store(&k, t1); v = t2; where the assignments of each iteration
// are made, from left to right, before its body.
func (r *fileRewriter) rangeAssign(s *ast.RangeStmt) {
	lhs := []ast.Expr{s.Key, s.Value}
	instrumented := false
	for _, e := range lhs {
		if e != nil && !isBlank(e) {
			r.addr(e)
			if _, m := r.isMapIndex(e); m || r.isShared(e) {
				instrumented = true
			}
		}
	}
	if !instrumented {
		return
	}
	kt, vt, ok := r.rangeTypes(s.X)
	if ok && r.isConst(s.X) && s.Key != nil && !isBlank(s.Key) {
		// range n with n constant: the iteration values have the type of the variable
		// (the temporary would have n's default type).
		name, named := r.typeName(r.typeOf(s.Key))
		ok = named
		kt = r.typeOf(s.Key)
		if named {
			r.wrap(s.X, func(t string) string { return "(" + name + ")(" + t + ")" })
		}
	}
	if !ok {
		for _, e := range lhs {
			if e != nil && !isBlank(e) && r.isShared(e) {
				r.problem(e.Pos(), "assignment by range to a shared variable is not instrumented")
			}
		}
		return
	}
	ts := []types.Type{kt, vt}
	var assigns []func() string
	for i, e := range lhs {
		if e == nil || isBlank(e) {
			continue
		}
		t, typ := r.temp("v"), ts[i]
		text := r.replaceBy(e, t)
		assigns = append(assigns, func() string { return r.assignText(e, text, t, typ) + "; " })
	}
	r.addEdit(s.TokPos, s.TokPos+1, func() string { return ":=" })
	r.addEdit(s.Body.Lbrace+1, s.Body.Lbrace+1, func() string {
		out := " "
		for _, a := range assigns {
			out += a()
		}
		return out
	})
}

// rangeTypes are the types of the iteration values of a range over x; false when they are
// not known (a type parameter).
func (r *fileRewriter) rangeTypes(x ast.Expr) (key, value types.Type, ok bool) {
	intType := types.Typ[types.Int]
	switch t := r.under(x).(type) {
	case *types.Basic:
		if t.Info()&types.IsString != 0 {
			return intType, types.Universe.Lookup("rune").Type(), true
		}
		if t.Info()&types.IsUntyped != 0 {
			return intType, nil, true // range n: n has the default type
		}
		return r.typeOf(x), nil, true
	case *types.Slice:
		return intType, t.Elem(), true
	case *types.Array:
		return intType, t.Elem(), true
	case *types.Pointer:
		if a, ok := t.Elem().Underlying().(*types.Array); ok {
			return intType, a.Elem(), true
		}
	case *types.Map:
		return t.Key(), t.Elem(), true
	case *types.Signature:
		if t.Params().Len() != 1 {
			break
		}
		if yield, ok := t.Params().At(0).Type().Underlying().(*types.Signature); ok {
			ps := yield.Params()
			if ps.Len() > 0 {
				key = ps.At(0).Type()
			}
			if ps.Len() > 1 {
				value = ps.At(1).Type()
			}
			return key, value, true
		}
	}
	return nil, nil, false
}
