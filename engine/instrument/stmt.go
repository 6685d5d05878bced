package instrument

// Statements: the walk that reaches every expression in Go's order.

import (
	"go/ast"
	"go/token"
)

func (r *fileRewriter) stmts(list []ast.Stmt) {
	for _, s := range list {
		r.stmt(s, false)
	}
}

// stmt walks s; simple is true where only a simple statement may stand (the init and post
// statements of if, for and switch).
func (r *fileRewriter) stmt(s ast.Stmt, simple bool) {
	switch x := s.(type) {
	case nil:
	case *ast.BlockStmt:
		r.stmts(x.List)
	case *ast.ExprStmt:
		r.rv(x.X)
	case *ast.SendStmt:
		r.rv(x.Chan)
		r.rv(x.Value)
		r.set(x, func() string {
			return r.eng("Send") + "(" + r.text(x.Chan) + ", " + r.conv(r.text(x.Value), r.typeOf(x.Value), r.elemType(x.Chan)) + ", " + r.pos(x.Arrow) + ")"
		})
	case *ast.IncDecStmt:
		op := "+"
		if x.Tok == token.DEC {
			op = "-"
		}
		r.opAssign(x, x.X, op, nil, simple)
	case *ast.AssignStmt:
		r.assign(x, simple)
	case *ast.GoStmt:
		r.goStmt(x)
	case *ast.DeferStmt:
		r.rv(x.Call)
	case *ast.ReturnStmt:
		for _, e := range x.Results {
			r.rv(e)
		}
		r.returnStmt(x)
	case *ast.IfStmt:
		r.stmt(x.Init, true)
		r.rv(x.Cond)
		r.stmt(x.Body, false)
		r.stmt(x.Else, false)
	case *ast.ForStmt:
		r.stmt(x.Init, true)
		r.rv(x.Cond)
		r.stmt(x.Post, true)
		r.stmt(x.Body, false)
	case *ast.RangeStmt:
		r.rangeStmt(x)
	case *ast.SwitchStmt:
		r.stmt(x.Init, true)
		r.rv(x.Tag)
		for _, cc := range x.Body.List {
			cc := cc.(*ast.CaseClause)
			for _, e := range cc.List {
				r.rv(e)
			}
			r.stmts(cc.Body)
		}
	case *ast.TypeSwitchStmt:
		r.stmt(x.Init, true)
		switch a := x.Assign.(type) {
		case *ast.AssignStmt:
			r.rv(a.Rhs[0].(*ast.TypeAssertExpr).X)
		case *ast.ExprStmt:
			r.rv(a.X.(*ast.TypeAssertExpr).X)
		}
		for _, cc := range x.Body.List {
			r.stmts(cc.(*ast.CaseClause).Body)
		}
	case *ast.SelectStmt:
		r.selectStmt(x)
	case *ast.LabeledStmt:
		r.stmt(x.Stmt, simple)
	case *ast.DeclStmt:
		if gd, ok := x.Decl.(*ast.GenDecl); ok {
			for _, sp := range gd.Specs {
				switch sp := sp.(type) {
				case *ast.ValueSpec:
					if len(sp.Names) == 2 && len(sp.Values) == 1 {
						r.commaOk(sp.Values[0])
						continue
					}
					for _, v := range sp.Values {
						r.rv(v)
					}
				}
			}
		}
	}
}
