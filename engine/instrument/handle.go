package instrument

// Test handles: the test's *testing.T keeps its type everywhere. A call of one of its
// methods — on a *testing.T, a testing.TB, or a value of an interface whose methods are all
// testing.TB's (an assertion library's TestingT) — and such a method used as a value have
// their receiver go through the harness, which gives the execution's per-schedule test when
// the value is the *testing.T of a test under control (engine/harness/hooks.go):
//
//	t.Fatalf(format, x)   ->  __ilh.OfT(t).Fatalf(format, x)
//	tb.Log(x)             ->  __ilh.OfTB(tb).Log(x)
//	h.Errorf(format, x)   ->  __ilh.Of(h).Errorf(format, x)
//	t.Run(name, f)        ->  __ilh.RunOf(t)(name, f)
//	x.Parallel()          ->  __ilh.ParallelOf(x)()        (x an interface, not a *testing.T)
//	f := w.Fatalf         ->  f := __ilh.OfTB(w.TB).Fatalf   (w embeds a testing.TB)

import (
	"go/ast"
	"go/types"
)

// handleSig is the signature of a method of testing.TB (and of *testing.T's Parallel and
// Deadline), as the kinds of its parameters and results (see kindOf); variadic marks a last
// parameter ...any.
type handleSig struct {
	params, results []string
	variadic        bool
	tOnly           bool // a method of *testing.T that testing.TB does not have
}

var handleMethods = map[string]handleSig{
	"ArtifactDir": {results: []string{"string"}},
	"Attr":        {params: []string{"string", "string"}},
	"Chdir":       {params: []string{"string"}},
	"Cleanup":     {params: []string{"func()"}},
	"Context":     {results: []string{"context.Context"}},
	"Error":       {params: []string{"[]any"}, variadic: true},
	"Errorf":      {params: []string{"string", "[]any"}, variadic: true},
	"Fail":        {},
	"FailNow":     {},
	"Failed":      {results: []string{"bool"}},
	"Fatal":       {params: []string{"[]any"}, variadic: true},
	"Fatalf":      {params: []string{"string", "[]any"}, variadic: true},
	"Helper":      {},
	"Log":         {params: []string{"[]any"}, variadic: true},
	"Logf":        {params: []string{"string", "[]any"}, variadic: true},
	"Name":        {results: []string{"string"}},
	"Output":      {results: []string{"io.Writer"}},
	"Setenv":      {params: []string{"string", "string"}},
	"Skip":        {params: []string{"[]any"}, variadic: true},
	"SkipNow":     {},
	"Skipf":       {params: []string{"string", "[]any"}, variadic: true},
	"Skipped":     {results: []string{"bool"}},
	"TempDir":     {results: []string{"string"}},
	"Parallel":    {tOnly: true},
	"Deadline":    {results: []string{"time.Time", "bool"}, tOnly: true},
	"Run":         {tOnly: true}, // its own hook, RunOf
}

// kindOf names the type t as handleSig does, "" for any other.
func kindOf(t types.Type) string {
	switch t := t.(type) {
	case *types.Basic:
		switch t.Kind() {
		case types.String:
			return "string"
		case types.Bool:
			return "bool"
		}
	case *types.Slice:
		if it, ok := t.Elem().Underlying().(*types.Interface); ok && it.Empty() && !isTypeParam(t.Elem()) {
			return "[]any"
		}
	case *types.Signature:
		if t.Params().Len() == 0 && t.Results().Len() == 0 && t.TypeParams() == nil {
			return "func()"
		}
	case *types.Named, *types.Alias:
		if obj := typeNameOf(t); obj != nil && obj.Pkg() != nil {
			switch obj.Pkg().Path() + "." + obj.Name() {
			case "context.Context", "io.Writer", "time.Time":
				return obj.Pkg().Path() + "." + obj.Name()
			}
		}
	}
	return ""
}

func isTypeParam(t types.Type) bool { _, ok := t.(*types.TypeParam); return ok }

func typeNameOf(t types.Type) *types.TypeName {
	switch t := t.(type) {
	case *types.Named:
		return t.Obj()
	case *types.Alias:
		return t.Obj()
	}
	return nil
}

// matches reports whether the method m has the signature of testing.TB's method of its name.
func matches(m *types.Func) bool {
	want, ok := handleMethods[m.Name()]
	if !ok || want.tOnly && m.Name() == "Run" {
		return false
	}
	sig, ok := m.Type().(*types.Signature)
	if !ok || sig.Variadic() != want.variadic || sig.Params().Len() != len(want.params) || sig.Results().Len() != len(want.results) {
		return false
	}
	for i, k := range want.params {
		if kindOf(sig.Params().At(i).Type()) != k {
			return false
		}
	}
	for i, k := range want.results {
		if kindOf(sig.Results().At(i).Type()) != k {
			return false
		}
	}
	return true
}

// isTesting reports whether t is the type testing.name.
func isTesting(t types.Type, name string) bool {
	obj := typeNameOf(t)
	return obj != nil && obj.Pkg() != nil && obj.Pkg().Path() == "testing" && obj.Name() == name
}

// handleKind says what the harness takes a method's receiver of type t as: "OfT" for a
// *testing.T, "OfTB" for a testing.TB (an interface that embeds it, a type parameter
// constrained by it), "Of" for an
// interface whose methods all have testing.TB's signatures, "" for anything else.
func handleKind(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		if isTesting(p.Elem(), "T") {
			return "OfT"
		}
		return ""
	}
	if isTesting(t, "TB") {
		return "OfTB"
	}
	if tp, ok := t.(*types.TypeParam); ok {
		if isTesting(tp.Constraint(), "TB") {
			return "OfTB"
		}
		return ""
	}
	if typeNameOf(t) != nil && isTesting(t, "T") {
		return ""
	}
	it, ok := t.Underlying().(*types.Interface)
	if !ok || it.NumMethods() == 0 {
		return ""
	}
	for i := 0; i < it.NumMethods(); i++ {
		if m := it.Method(i); m.Name() == "private" && m.Pkg() != nil && m.Pkg().Path() == "testing" {
			return "OfTB" // it embeds testing.TB: its values are testing.TBs
		}
	}
	for i := 0; i < it.NumMethods(); i++ {
		if !matches(it.Method(i)) {
			return ""
		}
	}
	return "Of"
}

// handleMethod rewrites the receiver of x.M, a method value or the function of a call, when
// M is a test handle's method (see the comment above), and reports whether it did.
func (r *fileRewriter) handleMethod(x *ast.SelectorExpr, sel *types.Selection) bool {
	fn, _ := sel.Obj().(*types.Func)
	if fn == nil {
		return false
	}
	want, ok := handleMethods[fn.Name()]
	if !ok {
		return false
	}
	// The receiver: x.X, or the embedded field of its type the method is promoted from.
	cur := r.typeOf(x.X)
	if cur == nil {
		return false
	}
	idx := sel.Index()
	var path []string
	kind := handleKind(cur)
	for k := 0; kind == "" && k < len(idx)-1; k++ {
		st := cur
		if p, ok := st.Underlying().(*types.Pointer); ok {
			st = p.Elem()
		}
		s, ok := st.Underlying().(*types.Struct)
		if !ok {
			return false
		}
		f := s.Field(idx[k])
		if !f.Exported() && f.Pkg() != r.pkg {
			return false // reached through an unexported field of another package
		}
		path = append(path, f.Name())
		cur = f.Type()
		kind = handleKind(cur)
	}
	switch {
	case kind == "":
		return false
	case fn.Name() == "Run" && kind != "OfT":
		return false
	case kind == "Of" && !matches(fn):
		return false
	}
	r.rv(x.X)
	r.used[harnessName] = harnessPath
	r.set(x, func() string {
		recv := r.text(x.X)
		for _, f := range path {
			recv += "." + f
		}
		switch {
		case fn.Name() == "Run":
			return harnessName + ".RunOf(" + recv + ")"
		case want.tOnly && kind != "OfT":
			// Parallel or Deadline of a testing.TB that has them (an interface that embeds
			// it and adds them) or of an interface of TB methods: a hook of its own.
			return harnessName + "." + fn.Name() + "Of(" + recv + ")"
		}
		return harnessName + "." + kind + "(" + recv + ")." + fn.Name()
	})
	return true
}
