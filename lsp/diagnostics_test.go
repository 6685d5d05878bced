package lsp_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/interleave-dev/interleave/lsp/diagnose"
	"github.com/interleave-dev/interleave/lsp/lsptest"
)

// raceDiagnostics returns the race diagnostics of every file, by "path:line" (1-based).
func raceDiagnostics(all map[string][]protocol.Diagnostic) map[string][]protocol.Diagnostic {
	out := make(map[string][]protocol.Diagnostic)
	for path, ds := range all {
		for _, d := range ds {
			if d.Code == diagnose.CodeRace {
				k := fmt.Sprintf("%s:%d", path, d.Range.Start.Line+1)
				out[k] = append(out[k], d)
			}
		}
	}
	return out
}

var raceMessage = regexp.MustCompile(`^data race: (read|write) of \S.* by G\d+ \((started at \w+(_test)?\.go:\d+|the test)\) and (read|write) by G\d+( \(started at \w+(_test)?\.go:\d+\)| \(the test\))?( at \w+(_test)?\.go:\d+)? — seen in [\d,]+ of [\d,]+ schedules of Test\w+$`)

// TestRaceSuiteDiagnostics: for the race suite of testdata/races, a race warning on exactly
// the lines marked "// race", on the accessed expression, with the other access and the
// goroutines' go statements as related information.
func TestRaceSuiteDiagnostics(t *testing.T) {
	dir := racesModule(t)
	want := marked(t, filepath.Join(dir, "racy"))
	c := lsptest.Start(t, exe, dir)
	c.Initialize(lsptest.VSCodeInitialize([]string{dir}, nil))
	var got map[string][]protocol.Diagnostic
	c.Await("race diagnostics on every marked line", func(r *lsptest.Records) bool {
		got = raceDiagnostics(r.All())
		for k := range want {
			if len(got[k]) == 0 {
				return false
			}
		}
		return true
	})
	var extra []string
	for k := range got {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("race diagnostics on lines not marked: %v", extra)
	}
	for k, ds := range got {
		for _, d := range ds {
			if d.Source != "interleave" || d.Severity != protocol.DiagnosticSeverityWarning {
				t.Errorf("%s: source %q severity %v, want interleave, warning", k, d.Source, d.Severity)
			}
			if d.CodeDescription == nil || !strings.HasSuffix(string(d.CodeDescription.Href), "#data-races") {
				t.Errorf("%s: codeDescription %+v, want the data races page (docs/races.md)", k, d.CodeDescription)
			}
			if !raceMessage.MatchString(d.Message) {
				t.Errorf("%s: message %q does not have the form of %s", k, d.Message, raceMessage)
			}
			if d.Range.Start.Line != d.Range.End.Line || d.Range.End.Character <= d.Range.Start.Character {
				t.Errorf("%s: range %+v is not an expression on one line", k, d.Range)
			}
			if len(d.RelatedInformation) < 2 {
				t.Errorf("%s: related information %+v, want the other access and the go statements", k, d.RelatedInformation)
			}
			other := false
			for _, ri := range d.RelatedInformation {
				if strings.HasPrefix(ri.Message, "the other access") {
					other = true
					if k := fmt.Sprintf("%s:%d", ri.Location.URI.Filename(), ri.Location.Range.Start.Line+1); !want[k] {
						t.Errorf("%s: the other access at %s, which is not marked", k, k)
					}
				}
			}
			if !other {
				t.Errorf("%s: no related information on the other access: %+v", k, d.RelatedInformation)
			}
		}
	}
	// The operand's extent, not the line: counter.go:19 is "c.n++", the race on c.n.
	counter := filepath.Join(dir, "racy/counter/counter.go")
	c.Snapshot(func(r *lsptest.Records) {
		ds := r.Diagnostics(counter)
		if len(ds) != 1 {
			t.Fatalf("counter.go: %d diagnostics, want 1 (read and write on one line, one pair): %+v", len(ds), ds)
		}
		d := ds[0]
		if d.Range.Start.Character != 1 || d.Range.End.Character != 4 || !strings.Contains(d.Message, " of c.n by ") {
			t.Errorf("counter.go: range %+v, message %q: want c.n (characters 1 to 4)", d.Range, d.Message)
		}
		t.Logf("counter.go:19: %s", d.Message)
	})
	c.Shutdown()
}
