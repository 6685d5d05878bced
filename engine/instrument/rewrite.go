package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"go/version"
	"sort"
	"strconv"
	"strings"
)

// Import paths and names the rewritten files use. The names start with "__il" so that they
// cannot collide with the user's identifiers (Go identifiers of user code do not start with
// two underscores followed by "il" in practice, and the rewriter checks).
const (
	enginePath  = "github.com/interleave-dev/interleave/engine"
	harnessPath = "github.com/interleave-dev/interleave/engine/harness"
	engineName  = "__il"
	harnessName = "__ilh"
	testingName = "__iltesting"
)

// A Problem is a construct the rewriter left as it was, with why. Each is reported once.
type Problem struct {
	Pos token.Position
	Msg string
}

func (p Problem) String() string { return fmt.Sprintf("%s: %s", p.Pos, p.Msg) }

// fileRewriter rewrites one file. It works on the source text: every node it changes gets a
// replacement function (repl) or a range edit (edits), and the output is the original text
// with those spliced in. Replacements never add or remove a line break, so every line of the
// rewritten file is the line of the original with the same number: compile errors, stack
// traces and runtime.Caller report the user's own positions.
//
// What becomes a call into the engine: go statements; channel operations, select and range
// over a channel; reads and writes of shared memory and map operations; the functions and
// methods of sync, sync/atomic, time, context and runtime the engine replaces (specials),
// called or used as values (wg.Add as a method value, (*sync.Mutex).Unlock as a method
// expression, time.Sleep as a function value: see methodValue, methodExpr and funcValue); and
// the top-level functions of math/rand and math/rand/v2 (rand.Intn, rand.Float64,
// rand.Shuffle, v2's rand.IntN and rand.N, ...), called or used as values, which draw from
// the execution's own source with a fixed seed instead of the packages' randomly seeded one,
// so that an execution is a function of its schedule and a replay draws the same values
// (engine/rand.go); rand.Seed reseeds that source. Methods of a *rand.Rand the code makes
// itself are left alone: they are deterministic given its seed.
type fileRewriter struct {
	fset    *token.FileSet
	info    *types.Info
	file    *ast.File
	src     []byte
	base    int
	posName string // the file name in positions passed to the engine
	isTest  bool
	// pin, when set, is the language version the copy is compiled at (see langversion.go);
	// with pinAll the file is copied even if nothing in it is rewritten.
	pin    string
	pinAll bool

	repl     map[ast.Node]func() string
	edits    []edit
	items    []item // repl nodes and edits, sorted; built by output
	shared   map[*types.Var]bool
	tmp      int
	used     map[string]string // import name -> path of imports the rewrite needs
	problems []Problem
	tests    []string // renamed test functions
	changed  bool
	// aliases are the imports the rewrite adds to name types in conversions (see conv),
	// by import name.
	aliases map[string]*types.Package
	pkg     *types.Package // the file's package
}

type edit struct {
	from, to token.Pos
	text     func() string
}

type item struct {
	from, to int
	node     ast.Node // nil for an edit
	text     func() string
}

func newFileRewriter(fset *token.FileSet, pkg *types.Package, info *types.Info, file *ast.File, src []byte, posName string, isTest bool) *fileRewriter {
	return &fileRewriter{
		fset: fset, pkg: pkg, info: info, file: file, src: src,
		base:    fset.File(file.Pos()).Base(),
		posName: posName, isTest: isTest,
		repl:   make(map[ast.Node]func() string),
		shared: make(map[*types.Var]bool),
		used:   make(map[string]string),
	}
}

// ---- output ----

func (r *fileRewriter) off(p token.Pos) int { return int(p) - r.base }

func (r *fileRewriter) orig(n ast.Node) string { return string(r.src[r.off(n.Pos()):r.off(n.End())]) }

// text is the rewritten text of n.
func (r *fileRewriter) text(n ast.Node) string {
	if f, ok := r.repl[n]; ok {
		return f()
	}
	return r.splice(n.Pos(), n.End(), nil)
}

// inner is the text of n with its descendants rewritten but not n itself.
func (r *fileRewriter) inner(n ast.Node) string { return r.splice(n.Pos(), n.End(), n) }

func (r *fileRewriter) splice(from, to token.Pos, self ast.Node) string {
	if r.items == nil {
		r.buildItems()
	}
	a, b := r.off(from), r.off(to)
	i := sort.Search(len(r.items), func(i int) bool { return r.items[i].from >= a })
	var sb strings.Builder
	cur := a
	for ; i < len(r.items) && r.items[i].from < b; i++ {
		it := r.items[i]
		if it.from < cur || it.to > b || (self != nil && it.node == self) {
			continue
		}
		sb.Write(r.src[cur:it.from])
		sb.WriteString(it.text())
		cur = it.to
	}
	sb.Write(r.src[cur:b])
	return sb.String()
}

func (r *fileRewriter) buildItems() {
	for n, f := range r.repl {
		r.items = append(r.items, item{r.off(n.Pos()), r.off(n.End()), n, f})
	}
	for _, e := range r.edits {
		r.items = append(r.items, item{r.off(e.from), r.off(e.to), nil, e.text})
	}
	sort.SliceStable(r.items, func(i, j int) bool {
		a, b := r.items[i], r.items[j]
		if a.from != b.from {
			return a.from < b.from
		}
		if a.to != b.to {
			return a.to > b.to
		}
		return a.node == nil && b.node != nil // an edit covers the node of the same range
	})
	if r.items == nil {
		r.items = []item{}
	}
}

func (r *fileRewriter) set(n ast.Node, f func() string) {
	r.repl[n] = f
	r.changed = true
}

func (r *fileRewriter) addEdit(from, to token.Pos, f func() string) {
	r.edits = append(r.edits, edit{from, to, f})
	r.changed = true
}

// wrap replaces n by f applied to n's current text.
func (r *fileRewriter) wrap(n ast.Node, f func(string) string) {
	prev := r.repl[n]
	r.set(n, func() string {
		if prev != nil {
			return f(prev())
		}
		return f(r.inner(n))
	})
}

// pos is the Go string literal of n's position, the last argument of engine calls.
func (r *fileRewriter) pos(p token.Pos) string {
	position := r.fset.Position(p)
	return strconv.Quote(fmt.Sprintf("%s:%d:%d", r.posName, position.Line, position.Column))
}

// eng is a qualified engine identifier.
func (r *fileRewriter) eng(name string) string {
	r.used[engineName] = enginePath
	return engineName + "." + name
}

func (r *fileRewriter) temp(prefix string) string {
	r.tmp++
	return fmt.Sprintf("__il%s%d", prefix, r.tmp)
}

func (r *fileRewriter) problem(p token.Pos, format string, args ...any) {
	pr := Problem{r.fset.Position(p), fmt.Sprintf(format, args...)}
	for _, q := range r.problems {
		if q == pr {
			return
		}
	}
	r.problems = append(r.problems, pr)
}

// output returns the rewritten file, or nil when nothing changed.
func (r *fileRewriter) output() []byte {
	if !r.changed && !r.pinAll {
		return nil
	}
	body := r.splice(r.file.Name.End(), token.Pos(r.base+len(r.src)), nil)
	var sb strings.Builder
	header := r.src[:r.off(r.file.Name.End())]
	if r.pin != "" {
		var prefix string
		prefix, header = pinLanguage(r.fset, r.file, r.src, header, r.pin)
		sb.WriteString(prefix)
	}
	// The file is compiled from a copy: the line directive gives its positions (in compile
	// errors, stack traces, runtime.Caller) the original's name; lines match one to one.
	fmt.Fprintf(&sb, "//line %s:1:1\n", r.fset.Position(r.file.Pos()).Filename)
	sb.Write(header)
	names := make([]string, 0, len(r.used))
	for n := range r.used {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&sb, "; import %s %q", n, r.used[n])
	}
	sb.WriteString(body)
	if !strings.HasSuffix(body, "\n") {
		sb.WriteString("\n")
	}
	for _, name := range r.tests {
		fmt.Fprintf(&sb, "\nfunc %s(t *%s.T) { %s.RunTest(t, __il%s) }\n", name, r.testingImport(), harnessName, name)
	}
	// The rewrite may remove every use of an import of these packages (a file whose only
	// use of runtime is runtime.Gosched, a helper file that uses testing only in signatures
	// such as func helper(t testing.TB), which become the harness's TB): keep them used.
	keep := map[string]string{"runtime": "Gosched", "time": "Sleep", "sync": "NewCond", "sync/atomic": "AddInt32", "context": "Background",
		"math/rand": "Intn", "math/rand/v2": "IntN", "testing": "Verbose"}
	for _, imp := range r.file.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		fn, ok := keep[path]
		if !ok {
			continue
		}
		name := ""
		if imp.Name != nil {
			name = imp.Name.Name
		} else if pn, ok := r.info.Implicits[imp].(*types.PkgName); ok {
			name = pn.Name() // math/rand/v2 is rand
		}
		switch name {
		case "", "_":
		case ".":
			fmt.Fprintf(&sb, "\nvar _ = %s\n", fn)
		default:
			fmt.Fprintf(&sb, "\nvar _ = %s.%s\n", name, fn)
		}
	}
	for _, n := range names {
		// Keep every added import used even where all uses were given up.
		switch n {
		case engineName:
			fmt.Fprintf(&sb, "\nvar _ = %s.Read\n", n)
		case harnessName:
			fmt.Fprintf(&sb, "\nvar _ = %s.RunTest\n", n)
		case testingName:
			fmt.Fprintf(&sb, "\nvar _ = %s.Verbose\n", n)
		default:
			if p := r.aliases[n]; p != nil {
				if keep := keepAlive(p, n); keep != "" {
					fmt.Fprintf(&sb, "\n%s\n", keep)
				}
			}
		}
	}
	return []byte(restoreLines(sb.String(), r.fset.Position(r.file.Pos()).Filename))
}

// keepAlive is a declaration that uses the package p imported as name; "" when p has no
// exported object to use.
func keepAlive(p *types.Package, name string) string {
	for _, n := range p.Scope().Names() {
		o := p.Scope().Lookup(n)
		if !o.Exported() {
			continue
		}
		switch o := o.(type) {
		case *types.TypeName:
			if named, ok := o.Type().(*types.Named); ok && named.TypeParams().Len() > 0 {
				continue
			}
			if _, ok := o.Type().(*types.Alias); ok {
				continue
			}
			return "var _ *" + name + "." + n
		case *types.Func:
			if sig, ok := o.Type().(*types.Signature); ok && sig.TypeParams().Len() > 0 {
				continue
			}
			return "var _ = " + name + "." + n
		case *types.Var, *types.Const:
			return "var _ = " + name + "." + n
		}
	}
	return ""
}

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

// ---- analysis ----

// rewrite analyses the whole file and registers its replacements.
func (r *fileRewriter) rewrite() {
	r.findShared()
	for _, d := range r.file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if r.isTest {
				r.testFunc(d)
			}
			r.types(d.Type)
			if d.Recv != nil {
				r.types(d.Recv)
			}
			if d.Body != nil {
				r.stmts(d.Body.List)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					r.types(s.Type)
					for _, v := range s.Values {
						r.rv(v)
					}
				case *ast.TypeSpec:
					r.types(s.Type)
				}
			}
		}
	}
}

// testFunc renames TestXxx(t *testing.T) to __ilTestXxx; output adds a TestXxx that runs it
// under the engine.
func (r *fileRewriter) testFunc(d *ast.FuncDecl) {
	name := d.Name.Name
	if d.Recv != nil || !isTestName(name) || d.Type.TypeParams != nil {
		return
	}
	params := d.Type.Params.List
	if len(params) != 1 || len(params[0].Names) > 1 || d.Type.Results != nil {
		return
	}
	if !r.isTestingType(params[0].Type, "T", true) {
		return
	}
	r.set(d.Name, func() string { return "__il" + name })
	r.tests = append(r.tests, name)
	r.used[harnessName] = harnessPath
	if r.testingImport() == testingName {
		r.used[testingName] = "testing"
	}
}

// testingImport is the name under which the file imports package testing.
func (r *fileRewriter) testingImport() string {
	for _, imp := range r.file.Imports {
		if imp.Path.Value != `"testing"` {
			continue
		}
		if imp.Name == nil {
			return "testing"
		}
		if imp.Name.Name != "." && imp.Name.Name != "_" {
			return imp.Name.Name
		}
	}
	return testingName
}

func isTestName(name string) bool {
	if !strings.HasPrefix(name, "Test") || name == "TestMain" {
		return false
	}
	if len(name) == 4 {
		return true
	}
	c := name[4]
	return !(c >= 'a' && c <= 'z')
}

func (r *fileRewriter) isTestingType(e ast.Expr, name string, ptr bool) bool {
	if ptr {
		s, ok := e.(*ast.StarExpr)
		if !ok {
			return false
		}
		e = s.X
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	tn, ok := r.info.Uses[sel.Sel].(*types.TypeName)
	return ok && tn.Pkg() != nil && tn.Pkg().Path() == "testing" && tn.Name() == name
}

// types rewrites testing.T and testing.TB in type expressions to the harness's types, so that
// test helpers take the per-schedule test handle.
func (r *fileRewriter) types(n ast.Node) {
	if n == nil || !r.isTest {
		return
	}
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			for _, name := range []string{"T", "TB"} {
				if r.isTestingType(n, name, false) {
					r.used[harnessName] = harnessPath
					r.set(n, func() string { return harnessName + "." + name })
					return false
				}
			}
		case *ast.FuncLit, *ast.BlockStmt:
			return false // bodies are walked as code
		}
		return true
	})
}

// findShared marks the local variables that other goroutines may reach: those captured by a
// function literal and those whose address is taken (explicitly, or by a pointer-receiver
// method call or slicing an array).
func (r *fileRewriter) findShared() {
	var lits []*ast.FuncLit
	ast.Inspect(r.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			lits = append(lits, n)
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				r.markAddr(n.X)
			}
		case *ast.SliceExpr:
			if _, ok := r.under(n.X).(*types.Array); ok {
				r.markAddr(n.X)
			}
		case *ast.SelectorExpr:
			if sel, ok := r.info.Selections[n]; ok && sel.Kind() == types.MethodVal {
				if sig, ok := sel.Obj().Type().(*types.Signature); ok && sig.Recv() != nil {
					if _, isPtr := sig.Recv().Type().Underlying().(*types.Pointer); isPtr {
						if _, xPtr := r.under(n.X).(*types.Pointer); !xPtr {
							r.markAddr(n.X)
						}
					}
				}
			}
		}
		return true
	})
	for _, lit := range lits {
		ast.Inspect(lit.Body, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			v, ok := r.info.Uses[id].(*types.Var)
			if !ok || v.IsField() || r.isPkgVar(v) {
				return true
			}
			if v.Pos() < lit.Pos() || v.Pos() >= lit.End() {
				r.shared[v] = true
			}
			return true
		})
	}
}

func (r *fileRewriter) markAddr(e ast.Expr) {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.SelectorExpr:
			if sel, ok := r.info.Selections[x]; ok && sel.Kind() == types.FieldVal && !sel.Indirect() {
				e = x.X
				continue
			}
			return
		case *ast.IndexExpr:
			if _, ok := r.under(x.X).(*types.Array); ok {
				e = x.X
				continue
			}
			return
		case *ast.Ident:
			if v, ok := r.info.Uses[x].(*types.Var); ok && !r.isPkgVar(v) {
				r.shared[v] = true
			}
			return
		default:
			return
		}
	}
}

func (r *fileRewriter) isPkgVar(v *types.Var) bool {
	return v.Pkg() != nil && v.Parent() == v.Pkg().Scope()
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

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// sharedVar reports whether id is a variable other goroutines may reach.
func (r *fileRewriter) sharedVar(id *ast.Ident) bool {
	v, ok := r.info.Uses[id].(*types.Var)
	if !ok || v.IsField() || id.Name == "_" {
		return false
	}
	return r.isPkgVar(v) || r.shared[v]
}

// isShared reports whether the addressable expression e denotes memory that other goroutines
// may reach.
func (r *fileRewriter) isShared(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return r.sharedVar(x)
	case *ast.ParenExpr:
		return r.isShared(x.X)
	case *ast.SelectorExpr:
		if sel, ok := r.info.Selections[x]; ok {
			return sel.Kind() == types.FieldVal && (sel.Indirect() || r.isShared(x.X))
		}
		return r.sharedVar(x.Sel) // a qualified package variable
	case *ast.IndexExpr:
		switch t := r.under(x.X).(type) {
		case *types.Slice:
			return true
		case *types.Pointer:
			_, ok := t.Elem().Underlying().(*types.Array)
			return ok
		case *types.Array:
			return r.isShared(x.X)
		}
	case *ast.StarExpr:
		return true
	}
	return false
}

func (r *fileRewriter) isMapIndex(e ast.Expr) (*ast.IndexExpr, bool) {
	ix, ok := unparen(e).(*ast.IndexExpr)
	if !ok {
		return nil, false
	}
	_, ok = r.under(ix.X).(*types.Map)
	return ix, ok
}

// hasEffects reports whether evaluating e calls a function or receives from a channel: the
// operations whose order Go specifies.
func (r *fileRewriter) hasEffects(e ast.Node) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if tv, ok := r.info.Types[n.Fun]; ok && tv.IsType() {
				return true
			}
			found = true
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				found = true
			}
		}
		return !found
	})
	return found
}

// canPanic reports whether computing the address of the location e can panic.
func (r *fileRewriter) canPanic(e ast.Expr) bool {
	switch x := unparen(e).(type) {
	case *ast.Ident:
		return false
	case *ast.SelectorExpr:
		if sel, ok := r.info.Selections[x]; ok {
			return sel.Indirect() || r.canPanic(x.X)
		}
		return false
	}
	return true
}

func (r *fileRewriter) hasNewline(n ast.Node) bool { return strings.Contains(r.orig(n), "\n") }

// ---- expressions ----

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
		r.types(x.Type)
		r.stmts(x.Body.List)
	case *ast.CompositeLit:
		r.types(x.Type)
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
		r.types(x.Type)
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
		if value {
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

// ---- calls ----

// A special is an engine function that replaces a function or method of sync, sync/atomic,
// time, context or runtime.
type special struct {
	fn     string // the engine function
	method bool   // a method: its receiver's address is the first argument
	iface  bool   // an interface method: the receiver value is the first argument
	noPos  bool   // the engine function takes no position
}

var specials = map[string]special{
	"sync.Mutex.Lock":           {fn: "Lock", method: true},
	"sync.Mutex.Unlock":         {fn: "Unlock", method: true},
	"sync.Mutex.TryLock":        {fn: "TryLock", method: true},
	"sync.RWMutex.Lock":         {fn: "RWLock", method: true},
	"sync.RWMutex.Unlock":       {fn: "RWUnlock", method: true},
	"sync.RWMutex.RLock":        {fn: "RLock", method: true},
	"sync.RWMutex.RUnlock":      {fn: "RUnlock", method: true},
	"sync.RWMutex.TryLock":      {fn: "RWTryLock", method: true},
	"sync.RWMutex.TryRLock":     {fn: "RWTryRLock", method: true},
	"sync.RWMutex.RLocker":      {fn: "RLocker", method: true},
	"sync.WaitGroup.Add":        {fn: "WGAdd", method: true},
	"sync.WaitGroup.Done":       {fn: "WGDone", method: true},
	"sync.WaitGroup.Wait":       {fn: "WGWait", method: true},
	"sync.WaitGroup.Go":         {fn: "WGGo", method: true},
	"sync.Once.Do":              {fn: "OnceDo", method: true},
	"sync.Cond.Wait":            {fn: "CondWait", method: true},
	"sync.Cond.Signal":          {fn: "CondSignal", method: true},
	"sync.Cond.Broadcast":       {fn: "CondBroadcast", method: true},
	"sync.Locker.Lock":          {fn: "LockerLock", iface: true},
	"sync.Locker.Unlock":        {fn: "LockerUnlock", iface: true},
	"sync.OnceFunc":             {fn: "OnceFunc"},
	"sync.OnceValue":            {fn: "OnceValue"},
	"sync.OnceValues":           {fn: "OnceValues"},
	"time.Sleep":                {fn: "Sleep"},
	"time.After":                {fn: "After"},
	"time.NewTimer":             {fn: "NewTimer"},
	"time.AfterFunc":            {fn: "AfterFunc"},
	"time.Tick":                 {fn: "Tick"},
	"time.NewTicker":            {fn: "NewTicker"},
	"time.Now":                  {fn: "Now", noPos: true},
	"time.Since":                {fn: "Since", noPos: true},
	"time.Until":                {fn: "Until", noPos: true},
	"time.Timer.Stop":           {fn: "TimerStop", method: true},
	"time.Timer.Reset":          {fn: "TimerReset", method: true},
	"time.Ticker.Stop":          {fn: "TickerStop", method: true},
	"time.Ticker.Reset":         {fn: "TickerReset", method: true},
	"context.WithTimeout":       {fn: "WithTimeout"},
	"context.WithDeadline":      {fn: "WithDeadline"},
	"context.WithTimeoutCause":  {fn: "WithTimeoutCause"},
	"context.WithDeadlineCause": {fn: "WithDeadlineCause"},
	"runtime.Gosched":           {fn: "Gosched"},
}

// randPrefix names the engine functions of the top-level functions of math/rand and
// math/rand/v2: rand.Intn is engine.RandIntn, v2's rand.IntN engine.RandV2IntN (see
// engine/rand.go). Their constructors (rand.New, rand.NewPCG, ...) have none, and methods of
// a *rand.Rand are left alone.
var randPrefix = map[string]string{"math/rand": "Rand", "math/rand/v2": "RandV2"}

// engineFuncs is the set of exported functions of the engine, read from its source (see
// source.go); atomic operations are looked up there by name.
var engineFuncs map[string]bool

// specialOf returns the engine replacement of the function or method fn, if any.
func specialOf(fn *types.Func) (special, bool) {
	if fn.Pkg() == nil {
		return special{}, false
	}
	path := fn.Pkg().Path()
	switch path {
	case "sync", "sync/atomic", "time", "context", "runtime", "math/rand", "math/rand/v2":
	default:
		return special{}, false
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		if s, ok := specials[path+"."+fn.Name()]; ok {
			return s, true
		}
		if path == "sync/atomic" && engineFuncs["Atomic"+fn.Name()] {
			return special{fn: "Atomic" + fn.Name()}, true
		}
		if prefix, ok := randPrefix[path]; ok && engineFuncs[prefix+fn.Name()] {
			return special{fn: prefix + fn.Name()}, true
		}
		return special{}, false
	}
	rt := sig.Recv().Type()
	if p, ok := rt.(*types.Pointer); ok {
		rt = p.Elem()
	}
	named, ok := rt.(*types.Named)
	if !ok {
		return special{}, false
	}
	key := path + "." + named.Obj().Name() + "." + fn.Name()
	if s, ok := specials[key]; ok {
		return s, true
	}
	if path == "sync/atomic" && engineFuncs["Atomic"+named.Obj().Name()+fn.Name()] {
		return special{fn: "Atomic" + named.Obj().Name() + fn.Name(), method: true}, true
	}
	return special{}, false
}

// specialFor is specialOf for a call of fn through sel (nil for a plain function), where a
// Lock or Unlock of an interface with both methods also goes through the engine's
// sync.Locker dispatch.
func specialFor(fn *types.Func, sel *types.Selection) (special, bool) {
	if sp, ok := specialOf(fn); ok {
		return sp, true
	}
	if sel != nil && (fn.Name() == "Lock" || fn.Name() == "Unlock") && types.IsInterface(sel.Recv()) && lockerLike(sel.Recv()) {
		return specials["sync.Locker."+fn.Name()], true
	}
	return special{}, false
}

// lockerLike reports whether the interface type t has Lock() and Unlock() methods, so that a
// call of them can go through the engine's sync.Locker dispatch.
func lockerLike(t types.Type) bool {
	it, ok := t.Underlying().(*types.Interface)
	if !ok {
		return false
	}
	n := 0
	for i := 0; i < it.NumMethods(); i++ {
		m := it.Method(i)
		if m.Name() == "Lock" || m.Name() == "Unlock" {
			sig := m.Type().(*types.Signature)
			if sig.Params().Len() == 0 && sig.Results().Len() == 0 {
				n++
			}
		}
	}
	return n == 2
}

// callee returns the function a call calls statically, with its selection for a method.
func (r *fileRewriter) callee(fun ast.Expr) (*types.Func, *types.Selection, *ast.SelectorExpr) {
	switch f := unparen(fun).(type) {
	case *ast.Ident:
		fn, _ := r.info.Uses[f].(*types.Func)
		return fn, nil, nil
	case *ast.SelectorExpr:
		if sel, ok := r.info.Selections[f]; ok {
			fn, _ := sel.Obj().(*types.Func)
			switch sel.Kind() {
			case types.MethodVal:
				return fn, sel, f
			case types.MethodExpr:
				return fn, nil, f // T.M(x, args): the receiver is the first argument
			}
			return nil, nil, nil
		}
		fn, _ := r.info.Uses[f.Sel].(*types.Func)
		return fn, nil, f
	case *ast.IndexExpr:
		return r.funcObj(f.X), nil, nil // an instantiation f[T](args)
	case *ast.IndexListExpr:
		return r.funcObj(f.X), nil, nil
	}
	return nil, nil, nil
}

// funcObj is the function e names: an identifier or a qualified identifier, or nil.
func (r *fileRewriter) funcObj(e ast.Expr) *types.Func {
	var fn *types.Func
	switch x := unparen(e).(type) {
	case *ast.Ident:
		fn, _ = r.info.Uses[x].(*types.Func)
	case *ast.SelectorExpr:
		if _, ok := r.info.Selections[x]; !ok {
			fn, _ = r.info.Uses[x.Sel].(*types.Func)
		}
	}
	return fn
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

// funcValue rewrites e, a function the engine replaces used as a value (sleep := time.Sleep,
// f := atomic.AddInt64, draw := rand.Intn, rand.N[int]), to a function literal that calls
// the engine function, as its call would (see engineLit for its frame).
func (r *fileRewriter) funcValue(e ast.Expr, sp special) {
	if sp.method || sp.iface {
		return
	}
	sh, ok := r.shape(r.typeOf(e))
	if !ok {
		r.problem(e.Pos(), "function value %s is not instrumented: its parameter or result types cannot be named here", r.orig(e))
		return
	}
	switch x := e.(type) {
	case *ast.IndexExpr:
		r.types(x.Index)
	case *ast.IndexListExpr:
		for _, t := range x.Indices {
			r.types(t)
		}
	}
	p := r.pos(e.Pos())
	r.set(e, func() string {
		return r.engineLit(sh, func(args []string) string {
			if !sp.noPos {
				args = append(args, p)
			}
			return r.eng(sp.fn) + r.typeArgs(e) + "(" + strings.Join(args, ", ") + ")"
		}) + r.restore(e.End())
	})
}

// specialFunc returns the engine replacement of the function e names (f, pkg.F, or one of
// them instantiated) when e is not called.
func (r *fileRewriter) specialFunc(e ast.Expr) (special, bool) {
	switch x := e.(type) {
	case *ast.IndexExpr:
		e = x.X
	case *ast.IndexListExpr:
		e = x.X
	}
	fn := r.funcObj(e)
	if fn == nil {
		return special{}, false
	}
	return specialOf(fn)
}

// receiver walks the receiver of the method selection x.M and returns the text of the
// receiver to pass by address: x with the embedded fields of the promotion path, and "&" when
// that is not already a pointer. The caller has checked the path with promoted.
func (r *fileRewriter) receiver(x *ast.SelectorExpr, sel *types.Selection) func() string {
	if _, ok := r.under(x.X).(*types.Pointer); ok {
		r.rv(x.X)
	} else {
		r.addr(x.X)
	}
	path, isPtr, _ := r.recvPath(r.typeOf(x.X), sel.Index())
	return func() string { return recvText(r.text(x.X), path, isPtr) }
}

// recvText is the receiver to pass by address from the operand text x through the embedded
// fields path (see recvPath).
func recvText(x string, path []string, isPtr bool) string {
	if len(path) > 0 {
		x += "." + strings.Join(path, ".")
	}
	if isPtr {
		return x
	}
	return "&" + x
}

// recvPath is the path of embedded fields from a value of type t to the receiver of the
// method at the end of the selection index idx, and whether that receiver is a pointer. ok is
// false when the path cannot be written in this file: it goes through an unexported field of
// another package.
func (r *fileRewriter) recvPath(t types.Type, idx []int) (path []string, isPtr, ok bool) {
	for _, i := range idx[:len(idx)-1] {
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok {
			return nil, false, false
		}
		f := st.Field(i)
		if !f.Exported() && f.Pkg() != r.pkg {
			return nil, false, false
		}
		path = append(path, f.Name())
		t = f.Type()
	}
	_, isPtr = t.Underlying().(*types.Pointer)
	return path, isPtr, true
}

// promoted reports whether the receiver of the method selection x.M can be written in this
// file (see recvPath); it reports a problem when not.
func (r *fileRewriter) promoted(x *ast.SelectorExpr, sel *types.Selection) bool {
	t := r.typeOf(x.X)
	if sel.Kind() == types.MethodExpr {
		t = sel.Recv()
	}
	ok := t != nil
	if ok {
		_, _, ok = r.recvPath(t, sel.Index())
	}
	if !ok {
		r.problem(x.Pos(), "%s is promoted through an unexported field: not instrumented", r.orig(x))
		return false
	}
	return true
}

func (r *fileRewriter) args(list []ast.Expr) func() []string {
	for _, a := range list {
		r.rv(a)
	}
	return func() []string {
		out := make([]string, len(list))
		for i, a := range list {
			out[i] = r.text(a)
		}
		return out
	}
}

func (r *fileRewriter) call(c *ast.CallExpr) {
	if tv, ok := r.info.Types[c.Fun]; ok && tv.IsType() {
		r.types(c.Fun)
		for _, a := range c.Args {
			r.rv(a)
		}
		return
	}
	if r.isConst(c) {
		return
	}
	fun := unparen(c.Fun)
	var builtin *types.Builtin
	switch f := fun.(type) {
	case *ast.Ident:
		builtin, _ = r.info.Uses[f].(*types.Builtin)
	case *ast.SelectorExpr:
		builtin, _ = r.info.Uses[f.Sel].(*types.Builtin)
	}
	if builtin != nil {
		r.builtin(c, builtin.Name())
		return
	}
	fn, sel, sx := r.callee(c.Fun)
	if fn != nil {
		if ms, promoted := r.isPromotedExpr(sx); promoted {
			// (*Guarded).Lock(&g): a call of the method expression's function, which
			// finds the receiver in its argument after the arguments are evaluated.
			if _, ok := specialOf(fn); ok {
				r.methodExpr(sx, ms, c.Pos())
				r.args(c.Args)
				return
			}
		}
		sp, ok := specialFor(fn, sel)
		if ok && (sel == nil || !sp.method || r.promoted(sx, sel)) {
			r.specialCall(c, sp, sel, sx)
			return
		}
	}
	r.rv(c.Fun)
	for _, a := range c.Args {
		r.rv(a)
	}
}

func (r *fileRewriter) specialCall(c *ast.CallExpr, sp special, sel *types.Selection, sx *ast.SelectorExpr) {
	var recv func() string
	switch {
	case sel == nil:
		// A function, or a method expression (*sync.Mutex).Lock(&mu) whose receiver is its
		// first argument.
	case sp.iface:
		r.rv(sx.X)
		recv = func() string { return r.text(sx.X) }
	case sp.method:
		recv = r.receiver(sx, sel)
	}
	if c.Ellipsis.IsValid() {
		r.problem(c.Pos(), "variadic call of %s is not instrumented", sp.fn)
		r.rv(c.Fun)
		r.args(c.Args)
		return
	}
	args := r.args(c.Args)
	r.set(c, func() string {
		var parts []string
		if recv != nil {
			parts = append(parts, recv())
		}
		parts = append(parts, args()...)
		if !sp.noPos {
			parts = append(parts, r.pos(c.Pos()))
		}
		return r.eng(sp.fn) + r.typeArgs(c.Fun) + "(" + strings.Join(parts, ", ") + ")"
	})
}

// methodValue handles x.M used as a value (not called). The method value of a method the
// engine replaces (wg.Add, mu.TryLock, c.Add of an atomic.Int64, rw.RLocker, l.Lock of a
// sync.Locker, ...) becomes a function that calls the engine: the receiver is evaluated, and
// its address taken, once, where the method value is, as Go does.
func (r *fileRewriter) methodValue(x *ast.SelectorExpr, sel *types.Selection) {
	fn, _ := sel.Obj().(*types.Func)
	if fn != nil {
		if sp, ok := specialOf(fn); ok && sp.method && r.boundSpecial(x, sel, fn, sp) {
			return
		}
		if (fn.Name() == "Lock" || fn.Name() == "Unlock") && types.IsInterface(sel.Recv()) && lockerLike(sel.Recv()) {
			// l.Lock of a sync.Locker: the interface value is evaluated (and a nil one
			// panics) when the method value is made, as Go does.
			r.rv(x.X)
			sp := specials["sync.Locker."+fn.Name()]
			l := r.temp("l")
			r.set(x, func() string {
				lit := r.engineLit(funcShape{}, func([]string) string { return r.eng(sp.fn) + "(" + l + ", " + r.pos(x.Sel.Pos()) + ")" })
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
			return r.eng("Bind") + "(" + recv() + ", " + r.eng(sp.fn) + ", " + p + ")"
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
			return r.eng(sp.fn) + "(" + strings.Join(append(append([]string{rt}, args...), p), ", ") + ")"
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
	if !ok || !(sp.method || sp.iface) || !r.promoted(x, sel) {
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
			return r.eng(sp.fn) + "(" + strings.Join(append(append([]string{recv}, args[1:]...), pos), ", ") + ")"
		}) + r.restore(x.End())
	})
	return true
}

// isPromotedExpr reports whether sx is a method expression of a promoted method (whose
// receiver is not the first argument itself).
func (r *fileRewriter) isPromotedExpr(sx *ast.SelectorExpr) (*types.Selection, bool) {
	if sx == nil {
		return nil, false
	}
	sel, ok := r.info.Selections[sx]
	if !ok || sel.Kind() != types.MethodExpr {
		return nil, false
	}
	return sel, len(sel.Index()) > 1
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

// restore is a mark that gives the text after it its position again after a line directive
// in the rewritten text; p is its position in the original. output replaces the mark by a
// /*line*/ directive with the line the mark is on (lines match the original's one to one;
// the text of a select case is moved to the select's line) and p's column when p is on that
// line. A mark is "\x00column\x00": Go source cannot hold a NUL.
func (r *fileRewriter) restore(p token.Pos) string {
	position := r.fset.Position(p)
	return fmt.Sprintf("\x00%d:%d\x00", position.Line, position.Column)
}

// restoreLines replaces each mark of restore in out, a rewritten file whose first line is
// the //line directive of file, by a directive giving the next character its position in
// file.
func restoreLines(out, file string) string {
	if !strings.Contains(out, "\x00") {
		return out
	}
	var sb strings.Builder
	line, col := 0, 1 // of the next byte written, in file's terms: the header is line 0
	for {
		i := strings.IndexByte(out, 0)
		chunk := out
		if i >= 0 {
			chunk = out[:i]
		}
		sb.WriteString(chunk)
		if n := strings.Count(chunk, "\n"); n > 0 {
			line += n
			col = len(chunk) - strings.LastIndex(chunk, "\n")
		} else {
			col += len(chunk)
		}
		if i < 0 {
			return sb.String()
		}
		out = out[i+1:]
		j := strings.IndexByte(out, 0)
		var origLine, origCol int
		fmt.Sscanf(out[:j], "%d:%d", &origLine, &origCol)
		out = out[j+1:]
		if origLine == line {
			col = origCol
		}
		sb.WriteString(fmt.Sprintf("/*line %s:%d:%d*/", file, line, col))
	}
}

func (r *fileRewriter) builtin(c *ast.CallExpr, name string) {
	one := func(fn string) {
		r.rv(c.Args[0])
		r.set(c, func() string { return r.eng(fn) + "(" + r.text(c.Args[0]) + ", " + r.pos(c.Pos()) + ")" })
	}
	switch name {
	case "len", "cap":
		if len(c.Args) != 1 {
			break
		}
		switch t := r.under(c.Args[0]).(type) {
		case *types.Chan:
			if t.Dir() == types.SendOnly {
				// Len and Cap take a <-chan T, which a chan<- T does not convert to. A
				// capacity never changes: cap needs no scheduling point.
				if name == "len" {
					r.problem(c.Pos(), "len of a send-only channel is not instrumented")
				}
				break
			}
			if name == "len" {
				one("Len")
			} else {
				one("Cap")
			}
			return
		case *types.Map:
			r.rv(c.Args[0])
			a := c.Args[0]
			r.wrap(a, func(s string) string { return r.eng("MapRead") + "(" + s + ", " + r.pos(a.Pos()) + ")" })
			return
		}
	case "close":
		if len(c.Args) == 1 {
			one("Close")
			return
		}
	case "delete":
		if len(c.Args) == 2 {
			r.rv(c.Args[0])
			r.rv(c.Args[1])
			r.set(c, func() string {
				return r.eng("MapDelete") + "(" + r.text(c.Args[0]) + ", " + r.conv(r.text(c.Args[1]), r.typeOf(c.Args[1]), r.keyType(c.Args[0])) + ", " + r.pos(c.Pos()) + ")"
			})
			return
		}
	case "clear":
		if len(c.Args) == 1 {
			if _, ok := r.under(c.Args[0]).(*types.Map); ok {
				one("MapClear")
				return
			}
		}
	case "make":
		if ch, ok := r.under(c.Args[0]).(*types.Chan); ok {
			if ch.Dir() != types.SendRecv {
				r.problem(c.Pos(), "make of a directional channel type is not instrumented")
				break
			}
			if len(c.Args) > 1 {
				r.rv(c.Args[1])
			}
			r.set(c, func() string {
				size := "0"
				if len(c.Args) > 1 {
					size = r.conv(r.text(c.Args[1]), r.typeOf(c.Args[1]), types.Typ[types.Int])
				}
				return r.eng("MakeChanOf") + "[" + r.orig(c.Args[0]) + "](" + size + ", " + r.pos(c.Pos()) + ")"
			})
			return
		}
		for _, a := range c.Args[1:] {
			r.rv(a)
		}
		return
	case "new":
		if len(c.Args) == 1 {
			if tv, ok := r.info.Types[c.Args[0]]; ok && tv.IsType() {
				return
			}
		}
	case "Sizeof", "Alignof", "Offsetof":
		return // unsafe: the argument is not evaluated
	}
	for _, a := range c.Args {
		if tv, ok := r.info.Types[a]; ok && tv.IsType() {
			continue
		}
		r.rv(a)
	}
}

// ---- statements ----

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
			cc := cc.(*ast.CaseClause)
			for _, e := range cc.List {
				r.types(e)
			}
			r.stmts(cc.Body)
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
					r.types(sp.Type)
					if len(sp.Names) == 2 && len(sp.Values) == 1 {
						r.commaOk(sp.Values[0])
						continue
					}
					for _, v := range sp.Values {
						r.rv(v)
					}
				case *ast.TypeSpec:
					r.types(sp.Type)
				}
			}
		}
	}
}

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
		if _, ok := r.under(x.X).(*types.Map); ok {
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
			funText = func() string { return r.eng(sp.fn) + r.typeArgs(c.Fun) }
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
	default:
		if _, ok := fun.(*ast.Ident); ok {
			if _, isBuiltin := r.info.Uses[fun.(*ast.Ident)].(*types.Builtin); isBuiltin {
				r.problem(s.Pos(), "go statement calling a builtin is not instrumented")
				r.args(c.Args)
				return
			}
		}
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

func isFuncLit(e ast.Expr) bool {
	_, ok := e.(*ast.FuncLit)
	return ok
}

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
		if v := r.info.FileVersions[r.file]; v == "" || version.Compare(v, "go1.23") < 0 {
			fn = "MapRead"
		}
		r.wrap(x, func(t string) string { return r.eng(fn) + "(" + t + ", " + r.pos(x.Pos()) + ")" })
	default:
		r.rv(s.X) // a local array is not shared: rv reads nothing of it

	}
	if s.Tok == token.ASSIGN {
		r.rangeAssign(s)
	}
	r.stmts(s.Body.List)
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
