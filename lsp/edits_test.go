package lsp_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/interleave-dev/interleave/lsp/diagnose"
	"github.com/interleave-dev/interleave/lsp/lsptest"
)

// lines returns the 0-based start lines of the diagnostics, sorted and without repeats, and
// whether all of them are marked stale.
func lines(ds []protocol.Diagnostic) (out []int, stale bool) {
	stale = len(ds) > 0
	seen := make(map[int]bool)
	for _, d := range ds {
		if !seen[int(d.Range.Start.Line)] {
			seen[int(d.Range.Start.Line)] = true
			out = append(out, int(d.Range.Start.Line))
		}
		stale = stale && strings.HasSuffix(d.Message, diagnose.StaleSuffix)
	}
	sort.Ints(out)
	return out, stale
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// change sends one incremental change.
func change(c *lsptest.Client, path string, version int32, rng protocol.Range, text string) {
	c.Notify(protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.File(path)}, Version: version},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{{Range: rng, Text: text}},
	})
}

func pos(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }

// hoverRange returns the range of the hover at a position (nil: no hover).
func hoverRange(t *testing.T, c *lsptest.Client, path string, p protocol.Position) *protocol.Range {
	t.Helper()
	var h *protocol.Hover
	err := c.Call(protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)}, Position: p}}, &h)
	if err != nil {
		t.Fatalf("hover: %v", err)
	}
	if h == nil {
		return nil
	}
	return h.Range
}

// TestEditsMoveFindings: the races of lazyinit/config.go (lines 31 and 34) follow unsaved
// incremental edits above, below and inside them, are marked as from a run before the file
// changed, and the one whose expression is edited disappears.
func TestEditsMoveFindings(t *testing.T) {
	dir := racesModule(t)
	path := filepath.Join(dir, "racy/lazyinit/config.go")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := lsptest.Start(t, exe, dir)
	c.Initialize(lsptest.VSCodeInitialize([]string{dir}, nil))
	c.Notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: uri.File(path), LanguageID: "go", Version: 1, Text: string(text)}})
	await := func(what string, want []int, stale bool) {
		t.Helper()
		c.Await(what, func(r *lsptest.Records) bool {
			got, s := lines(r.Diagnostics(path))
			return equalInts(got, want) && s == stale
		})
	}
	await("the races at lines 31 and 34", []int{30, 33}, false)

	// Above: a new first line moves both down, marked stale.
	change(c, path, 2, protocol.Range{Start: pos(0, 0), End: pos(0, 0)}, "// A new first line.\n")
	await("the races at lines 32 and 35", []int{31, 34}, true)

	// Below: nothing moves (the hover, answered after the change, shows where).
	change(c, path, 3, protocol.Range{Start: pos(40, 0), End: pos(40, 0)}, "\n// More below.\n")
	if r := hoverRange(t, c, path, pos(31, 10)); r == nil || r.Start.Line != 31 || r.Start.Character != 8 || r.End.Character != 13 {
		t.Errorf("after an edit below: hover range %+v, want l.cfg on line 32 (characters 8-13)", r)
	}

	// On the line, before the operand: it moves right.
	change(c, path, 4, protocol.Range{Start: pos(31, 1), End: pos(31, 1)}, "var _ = 0; ")
	if r := hoverRange(t, c, path, pos(31, 21)); r == nil || r.Start.Character != 19 || r.End.Character != 24 {
		t.Errorf("after an edit before the operand: hover range %+v, want characters 19-24", r)
	}

	// An old version is refused, not applied.
	change(c, path, 3, protocol.Range{Start: pos(0, 0), End: pos(5, 0)}, "")
	if r := hoverRange(t, c, path, pos(31, 21)); r == nil || r.Start.Character != 19 {
		t.Errorf("after a change to an old version: hover range %+v, want it unchanged", r)
	}

	// Inside: l.cfg becomes l.config; that access's diagnostic disappears.
	change(c, path, 5, protocol.Range{Start: pos(31, 21), End: pos(31, 24)}, "config")
	await("only the race at line 35", []int{34}, true)

	// The first line removed again: back to line 34.
	change(c, path, 6, protocol.Range{Start: pos(0, 0), End: pos(1, 0)}, "")
	await("only the race at line 34", []int{33}, true)

	// Closed unsaved: the file on disk, which the run saw.
	c.Notify(protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)}})
	await("the races at lines 31 and 34 again", []int{30, 33}, false)
	c.Shutdown()
}

// TestStaleOnDisk: a file changed on disk since the run keeps its findings at their lines,
// marked as from a run before the file changed.
func TestStaleOnDisk(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, racesModule(t), dir)
	copyStore(t, racesModule(t), dir)
	path := filepath.Join(dir, "racy/counter/counter.go")
	data, _ := os.ReadFile(path)
	if err := os.WriteFile(path, append(data, []byte("\n// Changed after the run.\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	c := lsptest.Start(t, exe, dir)
	c.Initialize(lsptest.VSCodeInitialize([]string{dir}, nil))
	c.Await("the stale race of counter.go", func(r *lsptest.Records) bool {
		got, stale := lines(r.Diagnostics(path))
		return equalInts(got, []int{18}) && stale && r.Published(filepath.Join(dir, "racy/semaphore/pool.go"))
	})
	c.Snapshot(func(r *lsptest.Records) {
		if d := r.Diagnostics(path)[0]; d.Severity != protocol.DiagnosticSeverityInformation {
			t.Errorf("a stale race has severity %v, want information", d.Severity)
		}
		if got, stale := lines(r.Diagnostics(filepath.Join(dir, "racy/lazyinit/config.go"))); !equalInts(got, []int{30, 33}) || stale {
			t.Errorf("config.go, unchanged: lines %v stale %v, want 30, 33 not stale", got, stale)
		}
	})
	c.Shutdown()
}

// TestSavedEdits: edits saved and closed still carry the findings while the file on disk is
// what the editor saved; reopened with that text, they still do.
func TestSavedEdits(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, racesModule(t), dir)
	copyStore(t, racesModule(t), dir)
	path := filepath.Join(dir, "racy/lazyinit/config.go")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := lsptest.Start(t, exe, dir)
	c.Initialize(lsptest.VSCodeInitialize([]string{dir}, nil))
	item := protocol.TextDocumentItem{URI: uri.File(path), LanguageID: "go", Version: 1, Text: string(text)}
	c.Notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: item})
	await := func(what string, want []int, stale bool) {
		t.Helper()
		c.Await(what, func(r *lsptest.Records) bool {
			got, s := lines(r.Diagnostics(path))
			return equalInts(got, want) && s == stale
		})
	}
	await("the races at lines 31 and 34", []int{30, 33}, false)
	added := "// A new first line.\n"
	change(c, path, 2, protocol.Range{Start: pos(0, 0), End: pos(0, 0)}, added)
	await("the races at lines 32 and 35", []int{31, 34}, true)

	// Saved and closed.
	if err := os.WriteFile(path, []byte(added+string(text)), 0o644); err != nil {
		t.Fatal(err)
	}
	c.Notify(protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)}})
	c.Notify(protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)}})
	if r := hoverRange(t, c, path, pos(31, 10)); r == nil || r.Start.Line != 31 {
		t.Errorf("closed after saving: hover range %+v, want line 32", r)
	}
	// Reopened with the saved text.
	item.Version, item.Text = 7, added+string(text)
	c.Notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: item})
	if r := hoverRange(t, c, path, pos(34, 4)); r == nil || r.Start.Line != 34 {
		t.Errorf("reopened: hover range %+v, want line 35", r)
	}
	c.Shutdown()
}
