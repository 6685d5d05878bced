package diagnose

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/interleave-dev/interleave/engine/bounded"
	"github.com/interleave-dev/interleave/engine/findings"
)

// source is a parsed version of a file's text. The parse tolerates errors: the operands of
// a file that does not compile are still found where the parser could make sense of them.
//
// The syntax tree is made when an extent is first asked for and can be released (the extents
// found stay memoized), so that the server does not keep the trees of every file with
// findings.
type source struct {
	mu     sync.Mutex
	t      *text
	hash   string
	goFile bool
	parsed bool
	fset   *token.FileSet
	file   *ast.File // nil when the text is not Go
	tf     *token.File
	memo   map[extentKey]extentResult
}

type extentKey struct {
	line, col int
	expr      bool
}

type extentResult struct {
	start, end int
	text       string
	ok         bool
}

func parseSource(content string, goFile bool) *source {
	return &source{t: newText(content), hash: findings.Hash([]byte(content)), goFile: goFile}
}

// parse makes the syntax tree, if it is not made.
func (s *source) parse() {
	if s.parsed || !s.goFile {
		return
	}
	s.parsed = true
	s.fset = token.NewFileSet()
	s.file, _ = parser.ParseFile(s.fset, "", s.t.s, parser.SkipObjectResolution)
	if s.file != nil {
		s.tf = s.fset.File(s.file.Pos())
	}
}

// release drops the syntax tree; it is made again when needed.
func (s *source) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.parsed, s.fset, s.file, s.tf = false, nil, nil, nil
}

// extent returns the byte range of what a store position names: with expr, the operand
// expression that starts or ends at the column (the accessed memory: c.n in c.n++, r.m[k]
// in r.m[k] = v); otherwise, and when no expression is found, the line without its
// indentation. text is the operand's source; ok is false when the line is not in the text.
func (s *source) extent(line, col int, expr bool) (start, end int, text string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := extentKey{line, col, expr}
	if r, found := s.memo[k]; found {
		return r.start, r.end, r.text, r.ok
	}
	start, end, text, ok = s.findExtent(line, col, expr)
	if s.memo == nil {
		s.memo = make(map[extentKey]extentResult)
	}
	s.memo[k] = extentResult{start, end, text, ok}
	return start, end, text, ok
}

func (s *source) findExtent(line, col int, expr bool) (start, end int, text string, ok bool) {
	if expr {
		s.parse()
	}
	if line < 1 || line > len(s.t.lines) {
		return 0, 0, "", false
	}
	ls := s.t.lines[line-1]
	lt := s.t.line(line - 1)
	if expr && col > 0 && col-1 <= len(lt) && s.file != nil && s.tf != nil {
		off := ls + col - 1
		if a, b, ok := s.operand(off); ok {
			return a, b, s.t.s[a:b], true
		}
		// No expression there: the identifier at the column.
		i := col - 1
		j := i
		for j < len(lt) && isIdent(lt[j]) {
			j++
		}
		if j > i {
			return ls + i, ls + j, lt[i:j], true
		}
	}
	trimmed := strings.TrimLeft(lt, " \t")
	a := ls + len(lt) - len(trimmed)
	b := ls + len(strings.TrimRight(lt, " \t"))
	if b < a {
		b = a
	}
	return a, b, "", true
}

func isIdent(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c >= 0x80
}

// operand finds the memory operand at byte offset off: the innermost expression there,
// widened to the selector, index, slice, dereference or parentheses it is the operand of.
func (s *source) operand(off int) (start, end int, ok bool) {
	if off < 0 || off >= s.tf.Size() {
		return 0, 0, false
	}
	p := s.tf.Pos(off)
	path, _ := astutil.PathEnclosingInterval(s.file, p, p+1)
	var n ast.Expr
	i := 0
	for ; i < len(path); i++ {
		if e, isExpr := path[i].(ast.Expr); isExpr {
			n = e
			break
		}
	}
	if n == nil {
		return 0, 0, false
	}
	switch n.(type) {
	case *ast.BasicLit, *ast.FuncLit, *ast.CompositeLit, *ast.BinaryExpr, *ast.UnaryExpr, *ast.CallExpr, *ast.KeyValueExpr, *ast.BadExpr:
		return 0, 0, false
	}
	for i++; i < len(path); i++ {
		switch parent := path[i].(type) {
		case *ast.SelectorExpr:
			// x.f from x or from f.
		case *ast.IndexExpr:
			if parent.X != n {
				return s.span(n)
			}
		case *ast.IndexListExpr:
			if parent.X != n {
				return s.span(n)
			}
		case *ast.SliceExpr:
			if parent.X != n {
				return s.span(n)
			}
		case *ast.StarExpr, *ast.ParenExpr:
		default:
			return s.span(n)
		}
		n = path[i].(ast.Expr)
	}
	return s.span(n)
}

func (s *source) span(n ast.Node) (start, end int, ok bool) {
	a, b := s.tf.Offset(n.Pos()), s.tf.Offset(n.End())
	if a < 0 || b > len(s.t.s) || b <= a || strings.Contains(s.t.s[a:b], "\n") {
		return 0, 0, false
	}
	return a, b, true
}

// release drops the syntax tree of the file at path, if it is cached.
func (c *diskCache) release(path string) {
	c.mu.Lock()
	e, ok := c.entries[path]
	c.mu.Unlock()
	if ok {
		e.src.release()
	}
}

// diskCache keeps the parsed files read from disk, until they change.
type diskCache struct {
	mu      sync.Mutex
	entries map[string]diskEntry
}

type diskEntry struct {
	mod  time.Time
	size int64
	src  *source
}

// get returns the parsed content of the file at path, nil if it cannot be read or is not a
// regular file of at most bounded.Source's size (a position in a store document may name
// any path).
func (c *diskCache) get(path string) *source {
	info, err := os.Stat(path)
	if err != nil {
		return nil
	}
	c.mu.Lock()
	e, ok := c.entries[path]
	c.mu.Unlock()
	if ok && e.mod.Equal(info.ModTime()) && e.size == info.Size() {
		return e.src
	}
	data, err := bounded.Source.ReadFile(path)
	if err != nil {
		return nil
	}
	src := parseSource(string(data), strings.HasSuffix(path, ".go"))
	c.mu.Lock()
	if c.entries == nil {
		c.entries = make(map[string]diskEntry)
	}
	c.entries[path] = diskEntry{info.ModTime(), info.Size(), src}
	c.mu.Unlock()
	return src
}
