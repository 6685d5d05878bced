package instrument

// Channel operations and select: sends, receives (comma-ok too) and select, every case form
// and default.

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// commaOk walks the single right-hand side of a two-value assignment: v, ok = <-ch,
// m[k] or x.(T); or a call.
func (r *fileRewriter) commaOk(e ast.Expr) {
	switch x := unparen(e).(type) {
	case *ast.UnaryExpr:
		if x.Op == token.ARROW {
			r.rv(x.X)
			r.set(x, func() string { return r.eng("Recv2") + "(" + r.text(x.X) + ", " + r.pos(x.OpPos) + ")" })
			return
		}
	case *ast.IndexExpr:
		if _, ok := r.under(x.X).(*types.Map); ok && !r.syncOnly {
			r.rv(x.X)
			r.rv(x.Index)
			r.set(x, func() string {
				return r.eng("MapLoad2") + "(" + r.text(x.X) + ", " + r.conv(r.text(x.Index), r.typeOf(x.Index), r.keyType(x.X)) + ", " + r.pos(x.Lbrack) + ")"
			})
			return
		}
	case *ast.TypeAssertExpr:
		r.rv(x.X)
		return
	}
	r.rv(e)
}

// selectStmt rewrites select into engine.Select and a switch on the case it took.
func (r *fileRewriter) selectStmt(s *ast.SelectStmt) {
	type caseInfo struct {
		name   string
		expr   func() string
		assign func() string
	}
	var cases []caseInfo
	hasDefault := false
	clauses := s.Body.List
	idx := make([]int, len(clauses))
	for i, cl := range clauses {
		cc := cl.(*ast.CommClause)
		idx[i] = -1
		if cc.Comm == nil {
			hasDefault = true
			continue
		}
		ci := caseInfo{name: r.temp("c")}
		switch comm := cc.Comm.(type) {
		case *ast.SendStmt:
			r.rv(comm.Chan)
			r.rv(comm.Value)
			ci.expr = func() string {
				return r.eng("SendCase") + "(" + r.text(comm.Chan) + ", " + r.conv(r.text(comm.Value), r.typeOf(comm.Value), r.elemType(comm.Chan)) + ")"
			}
		case *ast.ExprStmt:
			u := unparen(comm.X).(*ast.UnaryExpr)
			r.rv(u.X)
			ci.expr = func() string { return r.eng("RecvCase") + "(" + r.text(u.X) + ")" }
		case *ast.AssignStmt:
			u := unparen(comm.Rhs[0]).(*ast.UnaryExpr)
			r.rv(u.X)
			ci.expr = func() string { return r.eng("RecvCase") + "(" + r.text(u.X) + ")" }
			name := ci.name
			if comm.Tok == token.DEFINE {
				ci.assign = func() string {
					if len(comm.Lhs) == 2 {
						return " " + r.text(comm.Lhs[0]) + ", " + r.text(comm.Lhs[1]) + " := " + name + ".Value(), " + name + ".OK();"
					}
					return " " + r.text(comm.Lhs[0]) + " := " + name + ".Value();"
				}
			} else {
				// The left sides are evaluated and assigned, from left to right, when the
				// case is taken.
				for _, l := range comm.Lhs {
					r.addr(l)
				}
				elem := r.elemType(u.X)
				ci.assign = func() string {
					out := ""
					for i, l := range comm.Lhs {
						if isBlank(l) {
							continue
						}
						v, vt := name+".Value()", elem
						if i == 1 {
							v, vt = name+".OK()", types.Typ[types.Bool]
						}
						out += " " + r.assignText(l, func() string { return r.text(l) }, v, vt) + ";"
					}
					return out
				}
			}
		}
		idx[i] = len(cases)
		cases = append(cases, ci)
		if r.hasNewline(cc.Comm) {
			r.problem(cc.Comm.Pos(), "select case spans lines: its lines are reported at the select")
		}
	}
	p := r.pos(s.Select)
	call := func() string {
		out := r.eng("Select") + "(" + p + ", " + strconv.FormatBool(hasDefault)
		for _, c := range cases {
			out += ", " + c.name
		}
		return out + ")"
	}
	// gc makes a select of one case (and a default) a plain or non-blocking operation, at
	// the line of the case: a panic (send on a closed channel) is reported there. The
	// Select call of such a select is put in the case.
	single := len(cases) == 1
	r.addEdit(s.Select, s.Body.Lbrace+1, func() string {
		var names, exprs []string
		for _, c := range cases {
			names = append(names, c.name)
			exprs = append(exprs, c.expr())
		}
		if len(names) == 0 {
			return "switch " + call() + " {"
		}
		if single {
			return "switch " + names[0] + " := " + exprs[0] + "; {"
		}
		return "switch " + strings.Join(names, ", ") + " := " + strings.Join(exprs, ", ") + "; " + call() + " {"
	})
	if !hasDefault {
		// A select without default is a terminating statement; a switch needs a default to
		// be one. Select never returns a case that does not exist.
		r.addEdit(s.Body.Rbrace, s.Body.Rbrace+1, func() string { return "default: panic(\"unreachable\") }" })
	}
	for i, cl := range clauses {
		cc := cl.(*ast.CommClause)
		i := i
		r.addEdit(cc.Case, cc.Colon+1, func() string {
			if idx[i] < 0 {
				return "default:"
			}
			out := "case " + strconv.Itoa(idx[i]) + ":"
			if single {
				out = "case " + call() + " == 0:"
			}
			if a := cases[idx[i]].assign; a != nil {
				out += a()
			}
			// The case's expressions went to the select's line, with their line breaks:
			// keep the others, so that the lines below stay where they were.
			pad := strings.Count(string(r.src[r.off(cc.Case):r.off(cc.Colon)]), "\n") - strings.Count(r.orig(cc.Comm), "\n")
			return out + strings.Repeat("\n", max(pad, 0))
		})
		r.stmts(cc.Body)
	}
}
