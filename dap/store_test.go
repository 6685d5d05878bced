package dap_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/dap"
	"github.com/interleave-dev/interleave/engine/runs"
	"github.com/interleave-dev/interleave/lsp"
	"github.com/interleave-dev/interleave/lsp/lsptest"
)

// feedModule has a test with a data race between two lines (racy.go:6, the write, and
// racy.go:9, the read) and a test that deadlocks at lock.go:8.
var feedModule = map[string]string{
	"go.mod": "module example.com/feed\n\ngo 1.24\n",
	"racy.go": `package feed

var x int

func set() {
	x = 1
}

func get() int { return x }
`,
	"lock.go": `package feed

import "sync"

func twice() {
	var mu sync.Mutex
	mu.Lock()
	mu.Lock()
}
`,
	"feed_test.go": `package feed

import (
	"sync"
	"testing"
)

func TestRace(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); set() }()
	_ = get()
	wg.Wait()
}

func TestDeadlock(t *testing.T) { twice() }
`,
}

// TestExplorationFeedsLanguageServer: an exploration the debug adapter runs (the editor's
// Explore interleavings lens, F5) writes its findings, its bug's schedule and a run summary
// to the results store, as interleave test does, and a language server started on the module
// afterwards puts the race on both of its lines and the deadlock on its line.
func TestExplorationFeedsLanguageServer(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir := writeModule(t, feedModule)
	for _, tt := range []struct {
		test string
		bug  bool
	}{{"TestRace", false}, {"TestDeadlock", true}} {
		c := driver{t, session(t, dap.Config{NoDelve: true})}
		c.Timeout = 5 * time.Minute
		if err := c.Start(map[string]any{"type": "interleave", "request": "launch", "mode": "explore", "program": dir, "test": tt.test, "schedules": 50}, nil); err != nil {
			t.Fatal(err)
		}
		if tt.bug {
			if st := c.stopped(); st.Body.Reason != "exception" {
				t.Fatalf("%s: stopped %+v, want the deadlock", tt.test, st.Body)
			}
		} else {
			c.event("terminated")
		}
		c.call("disconnect", map[string]any{"terminateDebuggee": true})
	}

	// The run summaries: one per exploration, from the debug adapter.
	files, _ := filepath.Glob(filepath.Join(dir, ".interleave", "runs", "*.json"))
	got := map[string]*runs.Outcome{}
	for _, f := range files {
		s, err := runs.LoadSummary(f)
		if err != nil {
			t.Fatal(err)
		}
		if s.Origin != dap.RunOrigin || len(s.Tests) != 1 || s.Tests[0].Result == nil {
			t.Fatalf("run summary %s: %+v", f, s)
		}
		got[s.Tests[0].Test] = &s.Tests[0]
	}
	if r := got["TestRace"]; r == nil || r.Result.Races != 1 || r.Result.Bug != nil || r.Result.Findings == "" {
		t.Errorf("TestRace's run summary: %+v", r)
	}
	if r := got["TestDeadlock"]; r == nil || r.Result.Bug == nil || r.Result.Bug.Kind != "deadlock" || r.Result.Bug.Position != "lock.go:8:2" ||
		!strings.HasPrefix(r.Result.Bug.Schedule, filepath.Join(dir, ".interleave", "schedules")) {
		t.Errorf("TestDeadlock's run summary: %+v", r)
	} else if _, err := os.Stat(r.Result.Bug.Schedule); err != nil {
		t.Errorf("the deadlock's schedule: %v", err)
	}

	// A language server started now shows what the explorations found.
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	exit := make(chan error, 1)
	srv := lsp.NewServer(lsp.Config{PollInterval: time.Hour})
	go func() {
		code := srv.Serve(context.Background(), sr, sw)
		sw.Close()
		if code != 0 {
			exit <- fmt.Errorf("exit status %d", code)
			return
		}
		exit <- nil
	}()
	l := lsptest.Connect(t, cr, cw, exit)
	l.Initialize(lsptest.VSCodeInitialize([]string{dir}, nil))
	racy, lock := filepath.Join(dir, "racy.go"), filepath.Join(dir, "lock.go")
	lines := func(r *lsptest.Records, path string) map[uint32]bool {
		out := map[uint32]bool{}
		for _, d := range r.Diagnostics(path) {
			out[d.Range.Start.Line+1] = true
		}
		return out
	}
	l.Await("the race on both lines and the deadlock", func(r *lsptest.Records) bool {
		rl, ll := lines(r, racy), lines(r, lock)
		return rl[6] && rl[9] && ll[8]
	})
	l.Shutdown()
}
