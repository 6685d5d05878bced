package diagnose

import (
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/interleave-dev/interleave/engine/findings"
)

// StaleSuffix ends the message of a finding from a run before its file changed.
const StaleSuffix = " (from a run before this file changed)"

// Resolver places items on the text of their files: the text open in the editor (Docs) or on
// disk. It caches parsed files; it is safe for concurrent use.
type Resolver struct {
	disk diskCache

	mu     sync.Mutex
	parsed map[*text]*source // the parsed texts of open documents
}

// DiskHash returns the content hash of the file on disk ("" if it cannot be read).
func (r *Resolver) DiskHash(path string) string {
	if src := r.disk.get(path); src != nil {
		return src.hash
	}
	return ""
}

// Docs returns the open document of a file, nil when it is not open.
type Docs func(path string) *Doc

// Resolved is an item placed on its file's current text.
type Resolved struct {
	*Item
	Range   protocol.Range
	Operand string
	Stale   bool
}

// Diagnostic returns the protocol's diagnostic of the placed item; docs places its related
// positions.
func (r *Resolver) Diagnostic(res Resolved, docs Docs) protocol.Diagnostic {
	d := protocol.Diagnostic{
		Range: res.Range, Severity: res.Severity, Code: res.Code, Source: Source,
		Message: res.Message(res.Operand),
	}
	if res.Code == CodeRace {
		d.CodeDescription = &protocol.CodeDescription{Href: uri.URI(RaceDocs)}
	}
	if res.Stale {
		d.Message += StaleSuffix
		if d.Severity < protocol.DiagnosticSeverityInformation {
			d.Severity = protocol.DiagnosticSeverityInformation
		}
	}
	for _, rel := range res.Related {
		rng, _, _, ok := r.locate(rel.Pos, rel.Hash, rel.Expr, docs(rel.Pos.File))
		if !ok {
			continue
		}
		d.RelatedInformation = append(d.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: uri.File(rel.Pos.File), Range: rng}, Message: rel.Message,
		})
	}
	return d
}

// Resolve places the items of one file on its text: doc when the file is open (nil
// otherwise). An item whose text the user edited away is left out.
func (r *Resolver) Resolve(items []*Item, doc *Doc) []Resolved {
	var out []Resolved
	seen := make(map[string]bool)
	for _, it := range items {
		rng, operand, stale, ok := r.locate(it.Pos, it.Hash, it.Expr, doc)
		if !ok {
			continue
		}
		res := Resolved{Item: it, Range: rng, Operand: operand, Stale: stale}
		// Two items saying the same thing at the same place (one race seen from both
		// accesses of one line) show once.
		key := it.Code + "\x00" + res.Message(operand) + "\x00" + rangeKey(rng)
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, res)
	}
	if doc == nil && len(items) > 0 {
		r.disk.release(items[0].Pos.File)
	}
	return out
}

func rangeKey(r protocol.Range) string {
	return strings.Join([]string{itoa(r.Start.Line), itoa(r.Start.Character), itoa(r.End.Line), itoa(r.End.Character)}, ",")
}

func itoa(n uint32) string {
	var b [10]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return string(b[i:])
}

func (r *Resolver) parse(t *text, goFile bool) *source {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.parsed[t]; ok {
		return s
	}
	if r.parsed == nil || len(r.parsed) > 64 {
		r.parsed = make(map[*text]*source)
	}
	s := &source{t: t, hash: findings.Hash([]byte(t.s)), goFile: goFile}
	r.parsed[t] = s
	return s
}

// locate places a store position on the file's current text. When the file is open and the
// position was recorded against the text as opened, the range is carried through the edits
// since (ok false when they changed its text). When the text hashes differently from the one
// the store recorded (and is not the text as opened), the position is kept and marked stale.
func (r *Resolver) locate(p Pos, hash string, expr bool, doc *Doc) (rng protocol.Range, operand string, stale, ok bool) {
	goFile := strings.HasSuffix(p.File, ".go")
	place := func(src *source) (protocol.Range, string, bool) {
		a, b, op, ok := src.extent(p.Line, p.Col, expr)
		if !ok {
			return protocol.Range{}, "", false
		}
		return protocol.Range{Start: src.t.position(a), End: src.t.position(b)}, op, true
	}
	if doc == nil {
		src := r.disk.get(p.File)
		if src == nil {
			return protocol.Range{}, "", false, false
		}
		rng, operand, ok = place(src)
		return rng, operand, hash != "" && hash != src.hash, ok
	}
	switch {
	case hash == doc.curH:
		rng, operand, ok = place(r.parse(doc.cur, goFile))
		return rng, operand, false, ok
	case hash == "" || hash == doc.baseH:
		rng, operand, ok = place(r.parse(doc.base, goFile))
		if !ok {
			return rng, operand, false, false
		}
		if !doc.Edited() {
			return rng, operand, false, true
		}
		rng, ok = doc.carry(rng)
		if ok && operand != "" {
			operand = doc.cur.s[doc.cur.offset(rng.Start):doc.cur.offset(rng.End)]
		}
		return rng, operand, true, ok
	}
	rng, operand, ok = place(r.parse(doc.cur, goFile))
	return rng, operand, true, ok
}
