package lsp_test

import (
	"bytes"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/lsp/lsptest"
)

// hostile is what a crafted results store puts in its strings: a line that ends the code
// fence a bug's message is shown in, then a command link, raw HTML, a link reference
// definition and its use, an autolink and a bare URL.
const hostile = "boom\n```\n~~~\n[x](command:workbench.action.terminal.new)\n<img src=x onerror=alert(1)>\n\n" +
	"[ref]: command:workbench.action.terminal.new\n[ref] <https://evil.example/> www.evil.example `code` **bold**\n````"

// hostileLine is hostile without its line breaks, for the strings of one line (a test's name,
// an operation, a function).
var hostileLine = strings.ReplaceAll(hostile, "\n", " ")

// TestHoverHostileStore: a store whose every string is hostile gives hovers in which those
// strings are text — no link but the server's own (files, and the interleave commands with
// their titles), no image, no raw HTML — and the strings are still shown.
func TestHoverHostileStore(t *testing.T) {
	dir := t.TempDir()
	src := "package hostile\n\nvar n int\n\nfunc Inc() {\n\tn++\n\tgo func() {}()\n}\n"
	files := map[string]string{
		"go.mod":          "module example.com/hostile\n\ngo 1.22\n",
		"hostile.go":      src,
		"hostile_test.go": "package hostile\n\nimport \"testing\"\n\nfunc TestInc(t *testing.T) { Inc() }\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkg := "example.com/hostile"
	frames := []schedule.Frame{
		{Func: hostileLine, File: filepath.Join(dir, "x](command:workbench.action.terminal.new)<img src=x onerror=alert(1)>.go"), Line: 6},
		{Func: "example.com/hostile.Inc", File: filepath.Join(dir, "hostile.go"), Line: 6},
	}
	schedPath := filepath.Join(dir, ".interleave", "schedules", "hostile.json")
	sched := &schedule.File{
		Test:     schedule.Test{Package: pkg, Name: "TestInc/" + hostileLine},
		Strategy: schedule.Strategy{Name: hostileLine},
		Result:   schedule.Summary{Steps: 1, Goroutines: 2},
		Bug: &schedule.Bug{Kind: "deadlock", Message: hostile, Step: 1, G: -1, Goroutines: []schedule.Goroutine{
			{ID: 0, Parent: -1, Status: hostileLine, Op: hostileLine, Pos: "hostile.go:3:5", Created: hostileLine, Stack: frames},
			{ID: 1, Parent: 0, Status: "blocked", Op: "lock", Pos: hostileLine, Created: "hostile.go:7:2", Stack: frames},
		}},
		Steps: []schedule.Step{{Kind: schedule.Run, G: 0}},
	}
	if err := os.MkdirAll(filepath.Dir(schedPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := sched.Save(schedPath); err != nil {
		t.Fatal(err)
	}
	access := func(op string, g int) findings.Access {
		return findings.Access{Pos: "hostile.go:6:2", File: "hostile.go", Line: 6, Col: 2, Op: op, Goroutine: g, Created: hostileLine, Stack: frames}
	}
	doc := &findings.File{
		Format: findings.FormatName, Version: findings.Version,
		Test:     findings.Test{Package: pkg, Name: "TestInc/" + hostileLine},
		Strategy: hostileLine, Points: hostileLine, Schedules: 10,
		Races: []findings.Race{{A: access("write", 1), B: access("read", 2), FirstSchedule: 1, Schedules: 3}},
		Bugs:  []findings.Bug{{Kind: "deadlock" + hostileLine, Message: hostile, Pos: "hostile.go:3:5", Schedule: schedPath}},
	}
	writeJSON(t, filepath.Join(dir, ".interleave", "findings", "hostile.json"), doc)
	writeJSON(t, filepath.Join(dir, ".interleave", "instrument", "hostile.json"), &findings.Instrumentation{
		Format: findings.InstrumentFormatName, Version: findings.Version, Package: pkg + "/" + hostileLine,
		Problems: []findings.Problem{{Pos: "hostile.go:7:2", File: "hostile.go", Line: 7, Col: 2, Message: hostile}},
	})

	c := lsptest.Start(t, exe, dir)
	c.Initialize(lsptest.VSCodeInitialize([]string{dir}, nil))
	path := filepath.Join(dir, "hostile.go")
	c.Await("the hostile store's diagnostics", func(r *lsptest.Records) bool { return len(r.Diagnostics(path)) == 3 })
	for _, at := range []struct {
		what       string
		line, char uint32
		shows      []string
	}{
		{"the bug", 2, 4, []string{"[x](command:workbench.action.terminal.new)", "<img src=x onerror=alert(1)>", hostileLine, "deadlock" + hostileLine}},
		{"the race", 5, 1, []string{hostileLine, "TestInc/" + hostileLine}},
		{"the construct not instrumented", 6, 1, []string{"[x](command:workbench.action.terminal.new)", pkg + "/" + hostileLine}},
	} {
		md := hover(t, c, path, at.line, at.char)
		if md == "" {
			t.Errorf("no hover on %s", at.what)
			continue
		}
		shown := checkInert(t, at.what, md)
		for _, want := range at.shows {
			if !strings.Contains(shown, want) {
				t.Errorf("the hover on %s does not show %q as text; it shows:\n%s", at.what, want, shown)
			}
		}
		if t.Failed() {
			t.Logf("hover on %s:\n%s", at.what, md)
		}
	}
	c.Shutdown()
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// ownCommands are the links to commands the server's hovers carry, by title.
var ownCommands = map[string]string{
	"Replay in debugger": "command:interleave.",
	"Explore again":      "command:interleave.",
}

// checkInert parses md as CommonMark with GitHub's extensions (as VS Code renders hovers)
// and reports every link other than the server's own, every image and all raw HTML. It
// returns the text md shows: its HTML rendering without tags, entities decoded.
func checkInert(t *testing.T, what, md string) string {
	t.Helper()
	source := []byte(md)
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM))
	doc := gm.Parser().Parse(text.NewReader(source))
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			title, dest := string(n.Text(source)), string(n.Destination)
			prefix, own := ownCommands[title]
			switch {
			case own && strings.HasPrefix(dest, prefix):
			case strings.HasPrefix(dest, "file://") && !strings.ContainsAny(dest, "()<> \n"):
			default:
				t.Errorf("the hover on %s has a link [%s](%s)", what, title, dest)
			}
		case *ast.AutoLink:
			t.Errorf("the hover on %s has an autolink to %s", what, n.URL(source))
		case *ast.Image:
			t.Errorf("the hover on %s has an image of %s", what, n.Destination)
		case *ast.RawHTML:
			t.Errorf("the hover on %s has raw HTML %q", what, string(n.Segments.Value(source)))
		case *ast.HTMLBlock:
			t.Errorf("the hover on %s has an HTML block %q", what, string(n.Lines().Value(source)))
		}
		return ast.WalkContinue, nil
	})
	var out bytes.Buffer
	if err := gm.Renderer().Render(&out, source, doc); err != nil {
		t.Fatalf("render the hover on %s: %v", what, err)
	}
	return html.UnescapeString(tag.ReplaceAllString(out.String(), ""))
}

// tag is an HTML tag of goldmark's rendering (which writes a < of the text as &lt;).
var tag = regexp.MustCompile(`<[^>]*>`)
