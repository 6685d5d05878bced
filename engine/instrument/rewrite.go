package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
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
	vnetPath    = "github.com/interleave-dev/interleave/engine/vnet"
	vnetName    = "__ilvnet"
	harnessName = "__ilh"
	testingName = "__iltesting"
)

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
// itself are left alone: they are deterministic given its seed. hash/maphash.MakeSeed, whose
// seeds choose a hash table's buckets, draws its seed from that source too
// (engine/maphash.go).
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
	tests    []string  // renamed test functions
	examples []example // renamed example functions (tests.go)
	changed  bool
	// aliases are the imports the rewrite adds to name types in conversions (see conv),
	// by import name.
	aliases map[string]*types.Package
	pkg     *types.Package // the file's package
	// results is the stack of the result lists of the functions being walked, innermost
	// last (results.go).
	results []*ast.FieldList
	// parents maps each node of the file to its parent, once needed (pipe.go).
	parents map[ast.Node]ast.Node
	// realNet, when not "", says why the package's connections stay real (netassert.go).
	realNet string
	// tcpReal, when not "", says why the package's TCP connections (net.Listen, net.Dial)
	// stay real: it asserts one to a *net.TCP type (netassert.go). Its net.Pipe calls need
	// not: a pipe is no *net.TCPConn natively either.
	tcpReal string
	// syncOnly leaves memory accesses alone: only goroutines, channels, the specials and
	// the order of map ranges are rewritten. The standard library's packages instrumented
	// for their synchronization (stdlib.go) are rewritten so.
	syncOnly bool
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

// rewrite analyses the whole file and registers its replacements.
func (r *fileRewriter) rewrite() {
	r.findShared()
	if r.isTest {
		r.exampleFuncs()
	}
	for _, d := range r.file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if r.isTest {
				r.testFunc(d)
			}
			if d.Body != nil {
				r.funcBody(d.Type, d.Body)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, v := range s.Values {
						r.rv(v)
					}
				}
			}
		}
	}
}

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

// specialName is the qualified name of the function that replaces sp's, in the engine or in
// package engine/vnet.
func (r *fileRewriter) specialName(sp special) string {
	if sp.vnet {
		r.used[vnetName] = vnetPath
		return vnetName + "." + sp.fn
	}
	return r.eng(sp.fn)
}

func (r *fileRewriter) temp(prefix string) string {
	r.tmp++
	return fmt.Sprintf("__il%s%d", prefix, r.tmp)
}

func (r *fileRewriter) hasNewline(n ast.Node) bool { return strings.Contains(r.orig(n), "\n") }
