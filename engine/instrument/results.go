package instrument

// Named results: a return statement writes them (return x, y) or reads them (a bare return,
// whose values are the results' current ones), and a goroutine that may reach a named result
// (a function literal writing err) races with those accesses, as go test -race reports.

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// funcBody walks the body of a function whose type is ft, with its results on the stack.
func (r *fileRewriter) funcBody(ft *ast.FuncType, body *ast.BlockStmt) {
	r.results = append(r.results, ft.Results)
	r.stmts(body.List)
	r.results = r.results[:len(r.results)-1]
}

// namedResults returns the named results of the innermost function being walked, nil when
// they are unnamed.
func (r *fileRewriter) namedResults() (names []*ast.Ident, vars []*types.Var) {
	if len(r.results) == 0 {
		return nil, nil
	}
	fl := r.results[len(r.results)-1]
	if fl == nil {
		return nil, nil
	}
	for _, f := range fl.List {
		if len(f.Names) == 0 {
			return nil, nil
		}
		for _, id := range f.Names {
			v, _ := r.info.Defs[id].(*types.Var)
			names, vars = append(names, id), append(vars, v)
		}
	}
	return names, vars
}

// returnStmt records the accesses of a return statement to named results of which one at least
// is shared: a bare return reads each shared one (engine.Load before the return); return
// e1, …, en writes them all, recorded once the values are evaluated: the last typed ei is
// wrapped, engine.Wrote(ei, pos, &r1, …, &rn), which returns it for the statement to assign
// (the results after it, untyped constants and nil, evaluate to nothing); when every ei is
// untyped, engine.Written(pos, &r1, …, &rn) comes before the return.
func (r *fileRewriter) returnStmt(s *ast.ReturnStmt) {
	names, vars := r.namedResults()
	shared := false
	for _, v := range vars {
		if v != nil && r.shared[v] {
			shared = true
		}
	}
	if !shared {
		return
	}
	p := r.pos(s.Return)
	if len(s.Results) == 0 {
		var reads []string
		for i, v := range vars {
			if v != nil && r.shared[v] {
				reads = append(reads, "_ = "+r.eng("Load")+"(&"+names[i].Name+", "+p+"); ")
			}
		}
		r.addEdit(s.Return, s.Return, func() string { return strings.Join(reads, "") })
		return
	}
	if len(s.Results) != len(names) {
		return // return f(), f returning the results: not rewritten
	}
	scope := r.pkg.Scope().Innermost(s.Return)
	var ptrs []string
	for i, id := range names {
		if id.Name == "_" {
			continue // a blank result cannot be reached by another goroutine
		}
		if scope == nil {
			return
		}
		if _, obj := scope.LookupParent(id.Name, s.Return); obj != vars[i] {
			// Shadowed here (err := … in a block): the results cannot be named.
			r.problem(s.Return, "the write of the named result %s by a return statement is not instrumented: it is shadowed there", id.Name)
			return
		}
		ptrs = append(ptrs, "&"+id.Name)
	}
	args := p + ", " + strings.Join(ptrs, ", ")
	for i := len(s.Results) - 1; i >= 0; i-- {
		e := s.Results[i]
		if tv := r.info.Types[e]; tv.Value != nil || tv.IsNil() {
			continue // a constant or nil: its type is the result's, and it evaluates to nothing
		}
		if r.contextTypedValue(e) {
			// Its type comes from the result (an untyped boolean, 1 << n): wrapped, it
			// would take its default type, which the result may not accept.
			r.problem(s.Return, "the write of named results by a return statement is not instrumented: the type of its last result comes from the result")
			return
		}
		r.wrap(e, func(t string) string { return r.eng("Wrote") + "(" + t + ", " + args + ")" })
		return
	}
	r.addEdit(s.Return, s.Return, func() string { return r.eng("Written") + "(" + args + "); " })
}

// contextTypedValue reports whether e, not a constant, may have its type from where it is
// assigned: a comparison or a logical operation (an untyped boolean), or a shift of a
// constant.
func (r *fileRewriter) contextTypedValue(e ast.Expr) bool {
	switch x := unparen(e).(type) {
	case *ast.BinaryExpr:
		switch x.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
			return true
		case token.SHL, token.SHR:
			return r.info.Types[x.X].Value != nil
		}
	case *ast.UnaryExpr:
		return r.contextTypedValue(x.X)
	}
	return false
}
