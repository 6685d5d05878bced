package diagnose

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// A text is a source file's content with its line starts, for converting between the store's
// positions (1-based lines, 1-based byte columns) and the protocol's (0-based lines, UTF-16
// code units).
type text struct {
	s     string
	lines []int // byte offset of each line's start
}

func newText(s string) *text {
	t := &text{s: s, lines: []int{0}}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			t.lines = append(t.lines, i+1)
		}
	}
	return t
}

// line returns the text of 0-based line n without its newline.
func (t *text) line(n int) string {
	if n < 0 || n >= len(t.lines) {
		return ""
	}
	end := len(t.s)
	if n+1 < len(t.lines) {
		end = t.lines[n+1] - 1
	}
	return strings.TrimSuffix(t.s[t.lines[n]:end], "\r")
}

// offset converts a protocol position to a byte offset, clamped to the text.
func (t *text) offset(p protocol.Position) int {
	n := int(p.Line)
	if n >= len(t.lines) {
		return len(t.s)
	}
	line := t.line(n)
	return t.lines[n] + byteCol(line, int(p.Character))
}

// position converts a byte offset to a protocol position.
func (t *text) position(off int) protocol.Position {
	if off < 0 {
		off = 0
	}
	if off > len(t.s) {
		off = len(t.s)
	}
	n := 0
	lo, hi := 0, len(t.lines)-1
	for lo <= hi {
		mid := (lo + hi) / 2
		if t.lines[mid] <= off {
			n, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	return protocol.Position{Line: uint32(n), Character: uint32(utf16Len(t.s[t.lines[n]:off]))}
}

// byteCol converts a UTF-16 column of line to a byte column, clamped to the line.
func byteCol(line string, units int) int {
	u := 0
	for i, r := range line {
		if u >= units {
			return i
		}
		if r >= 0x10000 {
			u += 2
		} else {
			u++
		}
	}
	return len(line)
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		s = s[size:]
		n += len(utf16.Encode([]rune{r}))
	}
	return n
}

// endOf returns the position just after text inserted at start.
func endOf(start protocol.Position, inserted string) protocol.Position {
	nl := strings.Count(inserted, "\n")
	if nl == 0 {
		return protocol.Position{Line: start.Line, Character: start.Character + uint32(utf16Len(inserted))}
	}
	last := inserted[strings.LastIndexByte(inserted, '\n')+1:]
	return protocol.Position{Line: start.Line + uint32(nl), Character: uint32(utf16Len(last))}
}

// cmp orders positions.
func cmp(a, b protocol.Position) int {
	switch {
	case a.Line < b.Line:
		return -1
	case a.Line > b.Line:
		return 1
	case a.Character < b.Character:
		return -1
	case a.Character > b.Character:
		return 1
	}
	return 0
}

// Contains reports whether p is inside r (both ends included, so that a cursor just after
// an expression still hovers it).
func Contains(r protocol.Range, p protocol.Position) bool {
	return cmp(r.Start, p) <= 0 && cmp(p, r.End) <= 0
}

// Overlaps reports whether two ranges share a position.
func Overlaps(a, b protocol.Range) bool {
	return cmp(a.Start, b.End) <= 0 && cmp(b.Start, a.End) <= 0
}
