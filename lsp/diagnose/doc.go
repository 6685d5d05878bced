package diagnose

import (
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/interleave-dev/interleave/engine/findings"
)

// Change is one content change of a didChange notification: Range nil replaces the whole
// text (full synchronization), otherwise Text replaces Range.
type Change struct {
	Range *protocol.Range
	Text  string
}

// Doc is a file open in the editor: its text as the editor has it, and the edits made since
// it was opened, through which the positions of findings recorded against the text as
// opened are carried, so that they follow the user's unsaved edits.
type Doc struct {
	Path    string
	Version int32

	base  *text // the text when opened
	baseH string
	cur   *text
	curH  string
	edits []edit // since base, in order
	// anchors caches ranges of the base text carried through every edit; dropped ones are
	// kept with ok false.
	anchors map[protocol.Range]anchor
}

type edit struct {
	rng  protocol.Range
	text string
}

type anchor struct {
	rng protocol.Range
	ok  bool
}

// NewDoc returns the document of a file opened with text.
func NewDoc(path, content string, version int32) *Doc {
	t := newText(content)
	h := findings.Hash([]byte(content))
	return &Doc{Path: path, Version: version, base: t, baseH: h, cur: t, curH: h, anchors: make(map[protocol.Range]anchor)}
}

// Text returns the document's current text.
func (d *Doc) Text() string { return d.cur.s }

// Apply applies the changes of version (in order). Changes of a version older than the
// document's are refused: the editor sends versions in increasing order, and applying an old
// one would move every finding to a wrong place.
func (d *Doc) Apply(version int32, changes []Change) error {
	if version != 0 && version <= d.Version {
		return fmt.Errorf("%s: change to version %d, the document is at version %d", d.Path, version, d.Version)
	}
	for _, c := range changes {
		if c.Range == nil {
			// The whole text: nothing of the base can be carried over.
			d.cur = newText(c.Text)
			d.edits = append(d.edits, edit{rng: protocol.Range{End: protocol.Position{Line: 1 << 30}}, text: c.Text})
			for k := range d.anchors {
				d.anchors[k] = anchor{}
			}
			continue
		}
		r := *c.Range
		if cmp(r.End, r.Start) < 0 {
			r.Start, r.End = r.End, r.Start
		}
		// Clamp to the text, so that the recorded edit is the one applied.
		r.Start = d.cur.position(d.cur.offset(r.Start))
		r.End = d.cur.position(d.cur.offset(r.End))
		s, e := d.cur.offset(r.Start), d.cur.offset(r.End)
		d.cur = newText(d.cur.s[:s] + c.Text + d.cur.s[e:])
		e1 := edit{rng: r, text: c.Text}
		d.edits = append(d.edits, e1)
		for k, a := range d.anchors {
			if a.ok {
				a.rng, a.ok = e1.carry(a.rng)
				d.anchors[k] = a
			}
		}
	}
	d.Version = version
	d.curH = findings.Hash([]byte(d.cur.s))
	return nil
}

// carry returns where r (a range of the text before the edit) is after it; ok is false when
// the edit changed the text of r itself.
func (e edit) carry(r protocol.Range) (protocol.Range, bool) {
	s, end := e.rng.Start, e.rng.End
	switch {
	case cmp(end, r.Start) <= 0: // before r: shift it
		ne := endOf(s, e.text)
		shift := func(p protocol.Position) protocol.Position {
			if p.Line == end.Line {
				return protocol.Position{Line: ne.Line, Character: ne.Character + p.Character - end.Character}
			}
			return protocol.Position{Line: p.Line - end.Line + ne.Line, Character: p.Character}
		}
		return protocol.Range{Start: shift(r.Start), End: shift(r.End)}, true
	case cmp(s, r.End) >= 0: // after r
		return r, true
	}
	return protocol.Range{}, false
}

// carry returns where range r of the text as opened is now.
func (d *Doc) carry(r protocol.Range) (protocol.Range, bool) {
	if a, ok := d.anchors[r]; ok {
		return a.rng, a.ok
	}
	a := anchor{rng: r, ok: true}
	for _, e := range d.edits {
		if a.rng, a.ok = e.carry(a.rng); !a.ok {
			break
		}
	}
	d.anchors[r] = a
	return a.rng, a.ok
}

// Hash is the content hash of the current text.
func (d *Doc) Hash() string { return d.curH }

// Reopen makes the document open again with version, after it was closed with the same
// text: the edits made before it was closed still carry the findings.
func (d *Doc) Reopen(version int32) { d.Version = version }

// Edited reports whether the text differs from the text as opened.
func (d *Doc) Edited() bool { return d.curH != d.baseH }

// Lines is the number of lines of the current text.
func (d *Doc) Lines() int { return len(d.cur.lines) }

// lineText returns 0-based line n of the current text.
func (d *Doc) lineText(n int) string { return strings.TrimRight(d.cur.line(n), "\r") }
