package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/interleave-dev/interleave/lsp/lsptest"
)

func hover(t *testing.T, c *lsptest.Client, path string, line, char uint32) string {
	t.Helper()
	var h *protocol.Hover
	err := c.Call(protocol.MethodTextDocumentHover, &protocol.HoverParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)}, Position: pos(line, char)}}, &h)
	if err != nil {
		t.Fatalf("hover: %v", err)
	}
	if h == nil {
		return ""
	}
	if h.Contents.Kind != protocol.Markdown {
		t.Errorf("hover of kind %q, want markdown", h.Contents.Kind)
	}
	return h.Contents.Value
}

// TestHover: the hover on a racy access and on a bug's line.
func TestHover(t *testing.T) {
	races := racesModule(t)
	ex := examplesDir(t)
	c := lsptest.Start(t, exe, races)
	c.Initialize(lsptest.VSCodeInitialize([]string{races, filepath.Join(ex, "lockorder")}, nil))
	counter := filepath.Join(races, "racy/counter/counter.go")
	c.Await("counter.go's race", func(r *lsptest.Records) bool { return len(r.Diagnostics(counter)) == 1 })
	h := hover(t, c, counter, 18, 2)
	t.Logf("hover on c.n++:\n%s", h)
	for _, want := range []string{
		"**Data race** on `c.n` — seen in ",
		"this access: **write** at [counter\\.go\\:19](" + string(uri.File(counter)) + "#L19) by G1, started at [counter\\_test\\.go\\:16](",
		"the other access: **read** at [counter\\.go\\:19](",
		"**G1** (write) stack:", "**G2** (read) stack:",
		"- `races/racy/counter.(*Counter).Inc` [counter\\.go\\:19](",
		"`TestConcurrentInc`: ",
		"[Replay in debugger](command:interleave.explore?", "[Explore again](command:interleave.explore?",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("hover on the race: no %q", want)
		}
	}
	if h := hover(t, c, counter, 22, 1); h != "" {
		t.Errorf("hover on a line without findings: %q, want none", h)
	}

	bank := filepath.Join(ex, "lockorder/bank_test.go")
	c.Await("lockorder's deadlock", func(r *lsptest.Records) bool { return len(r.Diagnostics(bank)) == 1 })
	var line uint32
	c.Snapshot(func(r *lsptest.Records) { line = r.Diagnostics(bank)[0].Range.Start.Line })
	h = hover(t, c, bank, line, 3)
	t.Logf("hover on the deadlock:\n%s", h)
	for _, want := range []string{
		"**deadlock** in `TestOppositeTransfers`", "all goroutines are blocked",
		"**G1** blocked: lock at [bank\\.go\\:46](", "(started at [bank\\_test\\.go\\:16](",
		"- `example.com/lockorder.TestOppositeTransfers` [bank\\_test\\.go\\:28](",
		"[Replay in debugger](command:interleave.replay?",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("hover on the deadlock: no %q", want)
		}
	}
	c.Shutdown()
}

// lenses returns "line: title [arguments]" for each code lens of a file.
func lenses(t *testing.T, c *lsptest.Client, path string) []protocol.CodeLens {
	t.Helper()
	var out []protocol.CodeLens
	if err := c.Call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)}}, &out); err != nil {
		t.Fatalf("codeLens: %v", err)
	}
	return out
}

// TestCodeLenses: Explore above every test and literal subtest, also in a file that does not
// type-check, and Replay above a test with a saved schedule, with the arguments the client
// needs.
func TestCodeLenses(t *testing.T) {
	dir := t.TempDir()
	lockorder := filepath.Join(examplesDir(t), "lockorder")
	copyTree(t, lockorder, dir)
	copyStore(t, lockorder, dir)
	broken := filepath.Join(dir, "broken_test.go")
	src := `package lockorder

import "testing"

func TestBroken(t *testing.T) {
	var x int = "not an int"
	t.Run("first case", func(t *testing.T) {
		undefinedCall(x)
		t.Run("inner", func(t *testing.T) {})
	})
	name := "computed"
	t.Run(name, func(t *testing.T) {})
}

func TestlowerCase(t *testing.T) {}

func helper(t *testing.T) {}
`
	if err := os.WriteFile(broken, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	c := lsptest.Start(t, exe, dir)
	c.Initialize(lsptest.VSCodeInitialize([]string{dir}, nil))
	type lensWant struct {
		line  uint32
		title string
		args  []any
	}
	check := func(path string, want []lensWant) {
		t.Helper()
		got := lenses(t, c, path)
		if len(got) != len(want) {
			t.Fatalf("%s: %d lenses %+v, want %d", filepath.Base(path), len(got), got, len(want))
		}
		for i, w := range want {
			g := got[i]
			if g.Command == nil || g.Range.Start.Line != w.line || !strings.HasPrefix(g.Command.Title, w.title) {
				t.Errorf("%s: lens %d: %+v %+v, want %q on line %d", filepath.Base(path), i, g.Range, g.Command, w.title, w.line+1)
				continue
			}
			for j, a := range w.args {
				if j >= len(g.Command.Arguments) || (a != nil && g.Command.Arguments[j] != a) {
					t.Errorf("%s: lens %q: arguments %v, want %v", filepath.Base(path), g.Command.Title, g.Command.Arguments, w.args)
					break
				}
			}
		}
	}
	check(broken, []lensWant{
		{4, "Explore interleavings", []any{dir, dir, "TestBroken"}},
		{6, "Explore interleavings", []any{dir, dir, "TestBroken/first_case"}},
		{8, "Explore interleavings", []any{dir, dir, "TestBroken/first_case/inner"}},
	})
	bank := filepath.Join(dir, "bank_test.go")
	got := lenses(t, c, bank)
	check(bank, []lensWant{
		{got[0].Range.Start.Line, "Explore interleavings", []any{dir, dir, "TestOppositeTransfers"}},
		{got[0].Range.Start.Line, "Replay deadlock (", []any{dir, dir, "TestOppositeTransfers", nil}},
	})
	if s, _ := got[1].Command.Arguments[3].(string); !strings.HasPrefix(s, filepath.Join(lockorder, ".interleave", "schedules", "TestOppositeTransfers-deadlock-")) && !strings.HasPrefix(s, filepath.Join(dir, ".interleave", "schedules", "TestOppositeTransfers-deadlock-")) {
		t.Errorf("replay lens: schedule %q, want the store's", s)
	}
	// Unsaved text counts: a test added in the editor gets its lens.
	c.Notify(protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: uri.File(broken), LanguageID: "go", Version: 1, Text: src + "\nfunc TestAdded(t *testing.T) {}\n"}})
	if got := lenses(t, c, broken); len(got) != 4 || got[3].Command.Arguments[2] != "TestAdded" {
		t.Errorf("after an unsaved edit: lenses %+v, want TestAdded's too", got)
	}
	// Not a test file: none.
	if got := lenses(t, c, filepath.Join(dir, "bank.go")); len(got) != 0 {
		t.Errorf("bank.go: lenses %+v, want none", got)
	}
	c.Shutdown()
}

// TestCodeActions: the commands offered on a race and on a bug.
func TestCodeActions(t *testing.T) {
	races := racesModule(t)
	lockorder := filepath.Join(examplesDir(t), "lockorder")
	c := lsptest.Start(t, exe, races)
	c.Initialize(lsptest.VSCodeInitialize([]string{races, lockorder}, nil))
	counter := filepath.Join(races, "racy/counter/counter.go")
	bank := filepath.Join(lockorder, "bank_test.go")
	var race, bug protocol.Diagnostic
	c.Await("the race and the deadlock", func(r *lsptest.Records) bool {
		if len(r.Diagnostics(counter)) == 0 || len(r.Diagnostics(bank)) == 0 {
			return false
		}
		race, bug = r.Diagnostics(counter)[0], r.Diagnostics(bank)[0]
		return true
	})
	actions := func(path string, d protocol.Diagnostic) []protocol.CodeAction {
		var out []protocol.CodeAction
		err := c.Call(protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: uri.File(path)}, Range: d.Range,
			Context: protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{d}}}, &out)
		if err != nil {
			t.Fatalf("codeAction: %v", err)
		}
		return out
	}
	type want struct{ title, command string }
	check := func(what string, got []protocol.CodeAction, wants []want) {
		t.Helper()
		if len(got) != len(wants) {
			t.Fatalf("%s: %d actions %+v, want %d", what, len(got), got, len(wants))
		}
		for i, w := range wants {
			a := got[i]
			if a.Title != w.title || a.Command == nil || a.Command.Command != w.command || a.Kind != protocol.QuickFix || len(a.Diagnostics) != 1 {
				t.Errorf("%s: action %d %+v, want %q running %s", what, i, a, w.title, w.command)
			}
		}
	}
	got := actions(counter, race)
	check("race", got, []want{
		{"Replay the schedule that showed this", "interleave.explore"},
		{"Explore this test with every access as a scheduling point", "interleave.explore"},
		{"Show the race in the timeline", "interleave.showTimeline"},
	})
	if args := got[1].Command.Arguments; len(args) != 4 || args[2] != "TestConcurrentInc" || args[1] != filepath.Join(races, "racy/counter") {
		t.Errorf("explore's arguments %v, want module, package directory, test, options", args)
	}
	got = actions(bank, bug)
	check("deadlock", got, []want{
		{"Replay the schedule that showed this", "interleave.replay"},
		{"Explore this test with every access as a scheduling point", "interleave.explore"},
		{"Show the deadlock in the timeline", "interleave.showTimeline"},
	})
	if s, _ := got[0].Command.Arguments[3].(string); !strings.Contains(s, "TestOppositeTransfers-deadlock-") {
		t.Errorf("replay's schedule argument %q", s)
	}
	c.Shutdown()
}

// TestNotInstrumented: a construct the rewriter left as it was is an information
// diagnostic.
func TestNotInstrumented(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module nocontrol\n\ngo 1.22\n",
		"nocontrol.go": `// Package nocontrol starts a goroutine the rewriter cannot instrument.
package nocontrol

// Forget deletes a key in a new goroutine.
func Forget(m map[int]bool) {
	go delete(m, 1)
}
`,
		"nocontrol_test.go": "package nocontrol\n\nimport \"testing\"\n\nfunc TestForget(t *testing.T) { Forget(map[int]bool{}) }\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	interleave(t, dir, []int{0}, "test", "-json", "-schedules", "10", ".")
	c := lsptest.Start(t, exe, dir)
	c.Initialize(lsptest.VSCodeInitialize([]string{dir}, nil))
	path := filepath.Join(dir, "nocontrol.go")
	c.Await("the not-instrumented information", func(r *lsptest.Records) bool { return len(r.Diagnostics(path)) == 1 })
	c.Snapshot(func(r *lsptest.Records) {
		d := r.Diagnostics(path)[0]
		if d.Code != "not-instrumented" || d.Severity != protocol.DiagnosticSeverityInformation || d.Range.Start.Line != 5 ||
			!strings.Contains(d.Message, "the memory access of go delete(...) is neither a scheduling point nor checked for races") {
			t.Errorf("diagnostic %+v, want information not-instrumented on line 6", d)
		}
	})
	c.Shutdown()
}
