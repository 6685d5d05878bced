package diagnose

import (
	"testing"

	"go.lsp.dev/protocol"
)

// TestOperand: the range of a store position is the accessed expression.
func TestOperand(t *testing.T) {
	src := `package p

func f(c *C, l *L, r *R, key string, p *int, xs []int) {
	c.n++
	cfg := l.cfg
	r.m[key] = value
	l.entries = append(l.entries, entry)
	*p = 1
	xs[2] = (*p) + 1
	x := broken(
}
`
	s := parseSource(src, true)
	for _, tc := range []struct {
		line, col int
		want      string
	}{
		{4, 2, "c.n"},        // the selector's start
		{5, 11, "l.cfg"},     // the selector's Sel
		{6, 2, "r.m[key]"},   // a map element
		{7, 2, "l.entries"},  // the left side
		{7, 21, "l.entries"}, // an argument
		{8, 2, "*p"},         // a dereference, from the star
		{8, 3, "*p"},         // ... and from the pointer
		{9, 2, "xs[2]"},      // an element
		{9, 11, "(*p)"},      // parentheses
		{10, 7, "broken"},    // a file with a syntax error still has its identifiers
		{4, 0, ""},           // no column: the line
		{99, 1, ""},          // no such line
	} {
		a, b, op, ok := s.extent(tc.line, tc.col, true)
		got := ""
		if ok {
			got = src[a:b]
		}
		switch {
		case tc.line == 99 && ok:
			t.Errorf("%d:%d: found %q in a line that does not exist", tc.line, tc.col, got)
		case tc.col == 0 && tc.line != 99 && got != "c.n++":
			t.Errorf("%d:%d: %q, want the line without indentation", tc.line, tc.col, got)
		case tc.want != "" && (got != tc.want || op != tc.want):
			t.Errorf("%d:%d: %q (operand %q), want %q", tc.line, tc.col, got, op, tc.want)
		}
	}
}

func rng(l1, c1, l2, c2 uint32) protocol.Range {
	return protocol.Range{Start: protocol.Position{Line: l1, Character: c1}, End: protocol.Position{Line: l2, Character: c2}}
}

// TestCarry: a range follows an edit before it, stays for an edit after it, and is lost when
// the edit touches its text.
func TestCarry(t *testing.T) {
	r := rng(5, 4, 5, 9)
	for _, tc := range []struct {
		name string
		edit edit
		want protocol.Range
		ok   bool
	}{
		{"a line inserted above", edit{rng(0, 0, 0, 0), "x\n"}, rng(6, 4, 6, 9), true},
		{"two lines deleted above", edit{rng(1, 0, 3, 0), ""}, rng(3, 4, 3, 9), true},
		{"text before it on its line", edit{rng(5, 1, 5, 1), "ab"}, rng(5, 6, 5, 11), true},
		{"a line break before it on its line", edit{rng(5, 2, 5, 2), "\n\t"}, rng(6, 3, 6, 8), true},
		{"typing at its start", edit{rng(5, 4, 5, 4), "é"}, rng(5, 5, 5, 10), true},
		{"typing at its end", edit{rng(5, 9, 5, 9), "z"}, r, true},
		{"below", edit{rng(6, 0, 9, 0), ""}, r, true},
		{"a non-BMP character before it", edit{rng(5, 0, 5, 0), "𝄞"}, rng(5, 6, 5, 11), true},
		{"inside", edit{rng(5, 5, 5, 6), "X"}, protocol.Range{}, false},
		{"its line deleted", edit{rng(5, 0, 6, 0), ""}, protocol.Range{}, false},
		{"across it", edit{rng(4, 2, 5, 7), ""}, protocol.Range{}, false},
	} {
		got, ok := tc.edit.carry(r)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("%s: %+v %v, want %+v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// TestDocApply: incremental changes in UTF-16 positions edit the text; old versions are
// refused; a full change replaces it.
func TestDocApply(t *testing.T) {
	d := NewDoc("/x.go", "a𝄞b\nline two\n", 1)
	steps := []struct {
		version int32
		changes []Change
		want    string
		err     bool
	}{
		{2, []Change{{Range: &protocol.Range{Start: protocol.Position{Line: 0, Character: 3}, End: protocol.Position{Line: 0, Character: 4}}, Text: "B"}}, "a𝄞B\nline two\n", false},
		{3, []Change{{Range: &protocol.Range{Start: protocol.Position{Line: 1, Character: 4}, End: protocol.Position{Line: 1, Character: 99}}, Text: ""}}, "a𝄞B\nline\n", false},
		{3, []Change{{Range: &protocol.Range{}, Text: "old"}}, "a𝄞B\nline\n", true},
		{4, []Change{{Range: &protocol.Range{Start: protocol.Position{Line: 9, Character: 0}, End: protocol.Position{Line: 9, Character: 0}}, Text: "end"}}, "a𝄞B\nline\nend", false},
		{5, []Change{{Text: "all new"}}, "all new", false},
	}
	for _, st := range steps {
		err := d.Apply(st.version, st.changes)
		if (err != nil) != st.err || d.Text() != st.want {
			t.Errorf("version %d: text %q, error %v; want %q, error %v", st.version, d.Text(), err, st.want, st.err)
		}
	}
	if !d.Edited() {
		t.Error("Edited() is false after edits")
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 10010: "10,010", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
