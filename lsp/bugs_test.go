package lsp_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/interleave-dev/interleave/lsp/lsptest"
)

// TestExampleBugs: each example's bug is an error at its position naming the kind, the test
// and the schedule, with the blocked goroutines as related information; the workspace has
// two folders, the examples (a directory of nested modules) and the race suite's module.
func TestExampleBugs(t *testing.T) {
	ex := examplesDir(t)
	races := racesModule(t)
	c := lsptest.Start(t, exe, t.TempDir())
	c.Initialize(lsptest.VSCodeInitialize([]string{ex, races}, nil))
	type want struct {
		file string
		line int
		kind string
		test string
		// related are "file:line message-prefix" that must be among the related information.
		related []string
		// or is the other report of the same bug, either of which may come first.
		or *want
	}
	wants := []want{
		{"closedchan/queue.go", 42, "panic", "TestCloseWhileSending", nil, nil},
		{"counter/account_test.go", 30, "fail", "TestConcurrentWithdraw", nil, nil},
		{"doublecheck/registry_test.go", 18, "fail", "TestConcurrentLookup", nil, nil},
		{"leak/dashboard.go", 31, "leak", "TestLoadFailure", []string{"dashboard.go:31 G1 is blocked: send", "dashboard.go:29 G1 was started here"}, nil},
		{"lockorder/bank_test.go", 28, "deadlock", "TestOppositeTransfers", []string{"bank_test.go:28 G0 is blocked: wg.wait", "bank.go:46 G1 is blocked: lock", "bank.go:46 G2 is blocked: lock"}, nil},
		{"rlock/cache.go", 28, "deadlock", "TestLookupDuringPut", []string{"cache.go:28 G0 is blocked: rlock", "cache.go:48 G1 is blocked: lock"}, nil},
		{"timeout/store_test.go", 13, "fail", "TestProfile", nil, nil},
		// wg.Add in the goroutine racing Wait: the check after Wait fails, or Wait is reused
		// while a previous one has not returned (Go's panic); which one an exploration meets
		// first depends on how many schedules its race-detection phase ran in its time.
		{"wgadd/runner_test.go", 26, "fail", "TestRunnerWait", nil, &want{"wgadd/runner.go", 37, "panic", "TestRunnerWait", nil, nil}},
	}
	var find func(r *lsptest.Records, w want) *protocol.Diagnostic
	find = func(r *lsptest.Records, w want) *protocol.Diagnostic {
		for _, d := range r.Diagnostics(filepath.Join(ex, w.file)) {
			if d.Code == w.kind && int(d.Range.Start.Line)+1 == w.line {
				return &d
			}
		}
		if w.or != nil {
			return find(r, *w.or)
		}
		return nil
	}
	c.Await("every example's bug", func(r *lsptest.Records) bool {
		for _, w := range wants {
			if find(r, w) == nil {
				return false
			}
		}
		// And the other folder's races.
		return len(r.Diagnostics(filepath.Join(races, "racy/counter/counter.go"))) > 0
	})
	c.Snapshot(func(r *lsptest.Records) {
		for _, w := range wants {
			d := find(r, w)
			if w.or != nil && (d.Code != w.kind || int(d.Range.Start.Line)+1 != w.line) {
				w = *w.or // the other report of the bug came first
			}
			t.Logf("%s:%d: %s", w.file, w.line, d.Message)
			if d.Severity != protocol.DiagnosticSeverityError || d.Source != "interleave" {
				t.Errorf("%s:%d: severity %v source %q, want an error from interleave", w.file, w.line, d.Severity, d.Source)
			}
			prefix := w.kind + " in " + w.test + ": "
			if strings.Contains(d.Message, "\n") {
				t.Errorf("%s:%d: message %q on several lines", w.file, w.line, d.Message)
			}
			if !strings.HasPrefix(d.Message, prefix) || !strings.Contains(d.Message, "(schedule "+w.test) || !strings.Contains(d.Message, "-"+w.kind+"-") {
				t.Errorf("%s:%d: message %q, want %q... naming the schedule", w.file, w.line, d.Message, prefix)
			}
			var rel []string
			for _, ri := range d.RelatedInformation {
				rel = append(rel, fmt.Sprintf("%s:%d %s", filepath.Base(ri.Location.URI.Filename()), ri.Location.Range.Start.Line+1, ri.Message))
			}
			for _, wr := range w.related {
				found := false
				for _, r := range rel {
					found = found || strings.HasPrefix(r, wr)
				}
				if !found {
					t.Errorf("%s:%d: related information %q, want %q among it", w.file, w.line, rel, wr)
				}
			}
		}
	})
	c.Shutdown()
}
