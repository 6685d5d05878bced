package instrument

// Type names in rewritten code: conversions and the names of types, written so that they
// resolve in the rewritten file.

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"
)

// conv is text, the rewritten text of an expression of type from, as a value of type to. An
// engine function's type parameters are inferred from all of its arguments, and inference
// does not assign: a *bytes.Buffer stored into an io.Writer, a concrete error sent on a chan
// error, a named key of a map whose key type is its underlying type all fail to compile. The
// value is converted to the target type, named in the file's terms; when that type cannot be
// named here (an unexported type of another package), text is returned as it is.
func (r *fileRewriter) conv(text string, from, to types.Type) string {
	if from == nil || to == nil || types.Identical(from, to) {
		return text
	}
	if b, ok := from.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		return text
	}
	name, ok := r.typeName(to)
	if !ok {
		return text
	}
	return "(" + name + ")(" + text + ")"
}

// typeName is the Go text of t in this file, adding imports as needed; false when t cannot be
// named here.
func (r *fileRewriter) typeName(t types.Type) (string, bool) {
	self := r.pkg
	ok := true
	var visit func(t types.Type)
	seen := map[types.Type]bool{}
	visit = func(t types.Type) {
		if seen[t] || !ok {
			return
		}
		seen[t] = true
		switch t := t.(type) {
		case *types.Named:
			if o := t.Obj(); o.Pkg() != nil && o.Pkg() != self {
				if !o.Exported() || !importable(self, o.Pkg().Path()) {
					ok = false
				}
			}
			if ta := t.TypeArgs(); ta != nil {
				for i := 0; i < ta.Len(); i++ {
					visit(ta.At(i))
				}
			}
		case *types.Alias:
			visit(types.Unalias(t))
		case *types.Pointer:
			visit(t.Elem())
		case *types.Slice:
			visit(t.Elem())
		case *types.Array:
			visit(t.Elem())
		case *types.Chan:
			visit(t.Elem())
		case *types.Map:
			visit(t.Key())
			visit(t.Elem())
		case *types.Signature:
			for _, tu := range []*types.Tuple{t.Params(), t.Results()} {
				for i := 0; i < tu.Len(); i++ {
					visit(tu.At(i).Type())
				}
			}
		case *types.Struct:
			for i := 0; i < t.NumFields(); i++ {
				if f := t.Field(i); !f.Exported() && f.Pkg() != self {
					ok = false
				}
				visit(t.Field(i).Type())
			}
		case *types.Interface:
			for i := 0; i < t.NumMethods(); i++ {
				if m := t.Method(i); !m.Exported() && m.Pkg() != self {
					ok = false
				}
				visit(t.Method(i).Type())
			}
			for i := 0; i < t.NumEmbeddeds(); i++ {
				visit(t.EmbeddedType(i))
			}
		}
	}
	visit(types.Unalias(t))
	if !ok {
		return "", false
	}
	name := types.TypeString(types.Unalias(t), func(p *types.Package) string {
		if p == self {
			return ""
		}
		for _, imp := range r.file.Imports {
			pn, _ := r.info.Implicits[imp].(*types.PkgName)
			if imp.Name != nil {
				pn, _ = r.info.Defs[imp.Name].(*types.PkgName)
			}
			if pn == nil || pn.Imported() != p || pn.Name() == "_" {
				continue
			}
			if pn.Name() == "." {
				return ""
			}
			return pn.Name()
		}
		for n, q := range r.aliases {
			if q == p {
				return n
			}
		}
		if r.aliases == nil {
			r.aliases = map[string]*types.Package{}
		}
		n := fmt.Sprintf("__ilp%d", len(r.aliases)+1)
		r.aliases[n] = p
		r.used[n] = p.Path()
		return n
	})
	return name, true
}

// importable reports whether package from may import the package at path (internal
// packages).
func importable(from *types.Package, path string) bool {
	i := strings.LastIndex(path, "/internal/")
	switch {
	case i >= 0:
	case strings.HasSuffix(path, "/internal"):
		i = len(path) - len("/internal")
	case strings.HasPrefix(path, "internal/") || path == "internal":
		return false // the standard library's
	default:
		return true
	}
	if from == nil {
		return false
	}
	parent := path[:i]
	fp := strings.TrimSuffix(from.Path(), "_test")
	return fp == parent || strings.HasPrefix(fp, parent+"/")
}

// keyType and elemType are the key and element types of the map or channel e; nil when e is
// not one.
func (r *fileRewriter) keyType(e ast.Expr) types.Type {
	if m, ok := r.under(e).(*types.Map); ok {
		return m.Key()
	}
	return nil
}

func (r *fileRewriter) elemType(e ast.Expr) types.Type {
	switch t := r.under(e).(type) {
	case *types.Map:
		return t.Elem()
	case *types.Chan:
		return t.Elem()
	}
	return nil
}

func (r *fileRewriter) typeOf(e ast.Expr) types.Type {
	if tv, ok := r.info.Types[e]; ok {
		return tv.Type
	}
	if id, ok := e.(*ast.Ident); ok {
		if o := r.info.ObjectOf(id); o != nil {
			return o.Type()
		}
	}
	return nil
}

func (r *fileRewriter) under(e ast.Expr) types.Type {
	t := r.typeOf(e)
	if t == nil {
		return nil
	}
	if _, ok := t.(*types.TypeParam); ok {
		return nil // operations on type parameters are left alone
	}
	return t.Underlying()
}

func (r *fileRewriter) isConst(e ast.Expr) bool {
	tv, ok := r.info.Types[e]
	return ok && tv.Value != nil
}

func (r *fileRewriter) isUntyped(e ast.Expr) bool {
	b, ok := r.typeOf(e).(*types.Basic)
	return ok && b.Info()&types.IsUntyped != 0
}

func (r *fileRewriter) isNil(e ast.Expr) bool {
	tv, ok := r.info.Types[e]
	return ok && tv.IsNil()
}

func (r *fileRewriter) isInstance(e ast.Expr) bool {
	var id *ast.Ident
	switch x := unparen(e).(type) {
	case *ast.Ident:
		id = x
	case *ast.SelectorExpr:
		id = x.Sel
	}
	if id == nil {
		return false
	}
	_, ok := r.info.Instances[id]
	if !ok {
		_, ok = r.info.Uses[id].(*types.Func)
	}
	return ok
}

// typeArgs is the text of the explicit type arguments of the function fun, "[int]" for
// rand.N[int]; "" when it has none. An engine function that replaces a generic one has its
// type parameters in the same order.
func (r *fileRewriter) typeArgs(fun ast.Expr) string {
	var list []ast.Expr
	switch f := unparen(fun).(type) {
	case *ast.IndexExpr:
		list = []ast.Expr{f.Index}
	case *ast.IndexListExpr:
		list = f.Indices
	default:
		return ""
	}
	parts := make([]string, len(list))
	for i, e := range list {
		parts[i] = r.text(e)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
