package srcmap

import (
	"fmt"
	"maps"
	"path"
	"sort"
	"strings"

	"github.com/interleave-dev/interleave/engine/schedule"
)

// Anchors returns the anchors of positions in the source under root (the module's root,
// to which the positions are relative). Positions whose file cannot be read have none.
func Anchors(root string, positions []string) map[string]schedule.Anchor {
	fs := &files{root: root}
	out := map[string]schedule.Anchor{}
	for _, ps := range positions {
		if _, done := out[ps]; done {
			continue
		}
		p, ok := parsePos(ps)
		if !ok {
			continue
		}
		s := fs.get(p.file)
		if s == nil || p.line > len(s.lines) || s.lines[p.line-1].key == "" {
			continue
		}
		l := s.lines[p.line-1]
		a := schedule.Anchor{Text: l.text, Line: p.line - 1, Col: l.cols[0]}
		first, last := 1, len(s.lines)
		if f := s.funcAt(p.line); f != nil {
			a.Func, a.Line = f.name, p.line-f.start
			first, last = f.start, f.end
		}
		for n := first; n < p.line && n <= last; n++ {
			if s.lines[n-1].key == l.key && (a.Func != "" || s.outside(n)) {
				a.Nth++
			}
		}
		out[pos{file: p.file, line: p.line}.String()] = a
	}
	return out
}

// Annotate sets f.Source to the anchors of the positions of f's steps and bug, read from
// the source under root, unless f has them already.
func Annotate(f *schedule.File, root string) {
	if f == nil || f.Source != nil || root == "" {
		return
	}
	if a := Anchors(root, positions(f)); len(a) > 0 {
		f.Source = a
	}
}

// positions lists the positions of f's steps, racy points and bug.
func positions(f *schedule.File) []string {
	var out []string
	for _, s := range f.Steps {
		if s.Pos != "" {
			out = append(out, s.Pos)
		}
	}
	out = append(out, f.RacyPoints...)
	if f.Bug != nil {
		out = append(out, f.Bug.Pos)
		for _, g := range f.Bug.Goroutines {
			out = append(out, g.Pos)
		}
	}
	return out
}

// Map is where the positions of a schedule are in the current source.
type Map struct {
	// Moved maps each anchored position whose line is now elsewhere to its position now.
	Moved map[string]string
	// Changed holds the anchored positions whose line is no longer in its function (it
	// changed, or was removed, or the function was), with their anchors.
	Changed map[string]schedule.Anchor
}

// SourceChanged reports whether the source of the schedule's positions changed: some line
// moved or is gone.
func (m *Map) SourceChanged() bool { return m != nil && (len(m.Moved) > 0 || len(m.Changed) > 0) }

// Lost reports whether the line at position p (as the schedule has it) is gone.
func (m *Map) Lost(p string) bool {
	if m == nil {
		return false
	}
	_, ok := m.Changed[p]
	return ok
}

// Describe says which lines of the schedule are gone, for messages: "x_test.go:12
// (`wg.Add(1)` in TestX)"; empty when none is.
func (m *Map) Describe() string {
	if m == nil || len(m.Changed) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m.Changed))
	for k := range m.Changed {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	const max = 3
	var parts []string
	for i, k := range keys {
		if i == max {
			parts = append(parts, fmt.Sprintf("and %d more", len(keys)-max))
			break
		}
		a := m.Changed[k]
		where := ""
		if a.Func != "" {
			where = " in " + a.Func
		}
		parts = append(parts, fmt.Sprintf("%s (`%s`%s)", k, a.Text, where))
	}
	return strings.Join(parts, ", ")
}

// Relocate returns a copy of f with its positions as they are in the source under root now,
// and the map it used. A position whose line is gone is cleared in the steps (the replay then
// matches that step by goroutine and operation alone) and kept as written elsewhere. f is
// not modified; a file without anchors is returned as it is, with an empty map.
func Relocate(f *schedule.File, root string) (*schedule.File, *Map) {
	m := &Map{Moved: map[string]string{}, Changed: map[string]schedule.Anchor{}}
	if len(f.Source) == 0 || root == "" {
		return f, m
	}
	fs := &files{root: root}
	now := map[string]string{} // anchored position (without column) → its position now, "" if gone
	find := func(ps string) (string, bool) {
		p, ok := parsePos(ps)
		if !ok {
			return ps, true
		}
		key := pos{file: p.file, line: p.line}.String()
		a, anchored := f.Source[key]
		if !anchored {
			a, anchored = f.Source[ps]
		}
		if !anchored {
			return ps, true
		}
		at, done := now[key]
		if !done {
			at = locate(fs, p.file, a)
			now[key] = at
			switch {
			case at == "":
				m.Changed[key] = a
			case at != key:
				m.Moved[key] = at
			}
		}
		if at == "" {
			return ps, false
		}
		q, _ := parsePos(at)
		q.col = p.col
		if p.col > 0 && a.Col > 0 {
			// The same token of the line: reformatting moves columns too.
			if k := (line{cols: textCols(a)}).tokenAt(p.col); k >= 0 {
				if s := fs.get(q.file); s != nil && k < len(s.lines[q.line-1].cols) {
					q.col = s.lines[q.line-1].cols[k]
				}
			}
		}
		return q.String(), true
	}
	g := *f
	g.Steps = make([]schedule.Step, len(f.Steps))
	for i, s := range f.Steps {
		if s.Pos != "" {
			if at, ok := find(s.Pos); ok {
				s.Pos = at
			} else {
				s.Pos = ""
			}
		}
		g.Steps[i] = s
	}
	if f.RacyPoints != nil {
		g.RacyPoints = make([]string, len(f.RacyPoints))
		for i, r := range f.RacyPoints {
			g.RacyPoints[i], _ = find(r)
		}
	}
	if f.Bug != nil {
		b := *f.Bug
		b.Pos, _ = find(b.Pos)
		b.Goroutines = append([]schedule.Goroutine(nil), b.Goroutines...)
		for i := range b.Goroutines {
			if b.Goroutines[i].Pos != "" {
				b.Goroutines[i].Pos, _ = find(b.Goroutines[i].Pos)
			}
		}
		g.Bug = &b
	}
	g.Source = maps.Clone(f.Source)
	return &g, m
}

// locate finds the line of anchor a, recorded in file, in the current source: in the same
// function of the same file, or of another file of the same directory (the function moved);
// "" if it is not there.
func locate(fs *files, file string, a schedule.Anchor) string {
	key := normalize(a.Text)
	if key == "" {
		return ""
	}
	if n := locateIn(fs.get(file), a, key); n > 0 {
		return pos{file: file, line: n}.String()
	}
	if a.Func == "" {
		return ""
	}
	dir := path.Dir(file)
	for _, other := range goFiles(fs.root, dir) {
		if other == file {
			continue
		}
		s := fs.get(other)
		if s == nil || s.funcNamed(a.Func) == nil {
			continue
		}
		if n := locateIn(s, a, key); n > 0 {
			return pos{file: other, line: n}.String()
		}
	}
	return ""
}

// locateIn returns the line in s of the anchor's Nth line with its tokens in its function,
// 0 if there is none.
func locateIn(s *source, a schedule.Anchor, key string) int {
	if s == nil {
		return 0
	}
	first, last := 1, len(s.lines)
	if a.Func != "" {
		f := s.funcNamed(a.Func)
		if f == nil {
			return 0
		}
		first, last = f.start, min(f.end, len(s.lines))
	}
	var cands []int
	for n := first; n <= last; n++ {
		if s.lines[n-1].key == key && (a.Func != "" || s.outside(n)) {
			cands = append(cands, n)
		}
	}
	if a.Nth < len(cands) {
		return cands[a.Nth]
	}
	// Fewer lines like it than before: one of them changed or went, and which one is not
	// known.
	return 0
}

// textCols returns the columns the tokens of the anchor's line had when it was recorded.
func textCols(a schedule.Anchor) []int {
	ls := lineKeys([]byte(a.Text))
	if len(ls) == 0 {
		return nil
	}
	cols := make([]int, len(ls[0].cols))
	for i, c := range ls[0].cols {
		cols[i] = c - 1 + a.Col
	}
	return cols
}
