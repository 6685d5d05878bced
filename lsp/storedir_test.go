package lsp_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/lsp"
	"github.com/interleave-dev/interleave/lsp/lsptest"
)

// inProcess serves a session of a server with cfg over pipes and returns its client.
func inProcess(t *testing.T, cfg lsp.Config) *lsptest.Client {
	t.Helper()
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	exit := make(chan error, 1)
	go func() {
		code := lsp.NewServer(cfg).Serve(context.Background(), sr, sw)
		sw.Close()
		if code != 0 {
			exit <- fmt.Errorf("exit status %d", code)
			return
		}
		exit <- nil
	}()
	return lsptest.Connect(t, cr, cw, exit)
}

// TestStoreDeletedAndMadeAgain: a client that watches the store for the server (VS Code) and
// reports the store's deletion as the deletion of the directory alone, or reports nothing
// (its watcher missed the documents of a directory it had just seen made), still sees the
// diagnostics go when .interleave/ is deleted and come back when it is made again. Before,
// they stayed until the server was restarted.
func TestStoreDeletedAndMadeAgain(t *testing.T) {
	for _, tt := range []struct {
		name string
		// events: the client reports the store directory's deletion and creation, and the
		// server does not poll; otherwise the client reports nothing and the server polls.
		events bool
	}{{"directory events", true}, {"no events", false}} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			src := "package p\n\nvar n int\n\nfunc inc() { n++ }\n\nfunc get() int { return n }\n"
			os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/p\n\ngo 1.22\n"), 0o644)
			os.WriteFile(filepath.Join(root, "p.go"), []byte(src), 0o644)
			acc := func(line int, op string, g int) findings.Access {
				pos := fmt.Sprintf("p.go:%d:14", line)
				return findings.Access{Pos: pos, File: "p.go", Line: line, Col: 14, Op: op, Goroutine: g}
			}
			doc := &findings.File{Test: findings.Test{Module: "example.com/p", Package: "example.com/p", Name: "TestP"}, Points: "all", Schedules: 10,
				Races: []findings.Race{{A: acc(5, "write", 1), B: acc(7, "read", 0), FirstSchedule: 1, Schedules: 3}},
				Files: map[string]string{"p.go": findings.Hash([]byte(src))}}
			if err := doc.Save(root); err != nil {
				t.Fatal(err)
			}
			saved, err := os.ReadFile(doc.Path)
			if err != nil {
				t.Fatal(err)
			}
			cfg := lsp.Config{PollInterval: time.Hour}
			if !tt.events {
				cfg.PollInterval = 20 * time.Millisecond
			}
			c := inProcess(t, cfg)
			c.Initialize(lsptest.VSCodeInitialize([]string{root}, nil))
			c.Await("the watcher's registration", func(r *lsptest.Records) bool { return len(r.Registrations()) == 1 })
			file := filepath.Join(root, "p.go")
			store := filepath.Join(root, ".interleave")
			notify := func(typ protocol.FileChangeType, paths ...string) {
				if !tt.events {
					return
				}
				var evs []*protocol.FileEvent
				for _, p := range paths {
					evs = append(evs, &protocol.FileEvent{Type: typ, URI: uri.File(p)})
				}
				c.Notify(protocol.MethodWorkspaceDidChangeWatchedFiles, &protocol.DidChangeWatchedFilesParams{Changes: evs})
			}
			c.Await("the race on both lines", func(r *lsptest.Records) bool { return len(r.Diagnostics(file)) == 2 })

			for round := 1; round <= 2; round++ {
				if err := os.RemoveAll(store); err != nil {
					t.Fatal(err)
				}
				notify(protocol.FileChangeTypeDeleted, store)
				c.Await(fmt.Sprintf("the diagnostics cleared (round %d)", round), func(r *lsptest.Records) bool {
					return r.Published(file) && len(r.Diagnostics(file)) == 0
				})
				// Made again as interleave test makes it: the directories, then the document
				// written whole.
				dir := filepath.Dir(doc.Path)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				tmp := filepath.Join(dir, ".doc.tmp")
				if err := os.WriteFile(tmp, saved, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(tmp, doc.Path); err != nil {
					t.Fatal(err)
				}
				notify(protocol.FileChangeTypeCreated, store, dir)
				c.Await(fmt.Sprintf("the diagnostics back (round %d)", round), func(r *lsptest.Records) bool { return len(r.Diagnostics(file)) == 2 })
			}
			c.Shutdown()
		})
	}
}

// TestReplayLensAppears: a schedule saved while the editor is open (the debug adapter's
// exploration, in a store directory it just made) brings the Replay lens: the server notices
// it without the client's file events (VS Code's watcher misses the documents of a directory it
// has just seen made) and asks the client to refresh its code lenses. Before, the lens never
// appeared in VS Code, though a new session's codeLens request returned it.
func TestReplayLensAppears(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/p\n\ngo 1.22\n"), 0o644)
	test := filepath.Join(root, "p_test.go")
	os.WriteFile(test, []byte("package p\n\nimport \"testing\"\n\nfunc TestP(t *testing.T) {}\n"), 0o644)
	c := inProcess(t, lsp.Config{PollInterval: 20 * time.Millisecond})
	c.Initialize(lsptest.VSCodeInitialize([]string{root}, nil))
	c.Await("the watcher's registration", func(r *lsptest.Records) bool { return len(r.Registrations()) == 1 })
	titles := func() []string {
		var out []string
		for _, l := range lenses(t, c, test) {
			out = append(out, l.Command.Title)
		}
		return out
	}
	if got := titles(); len(got) != 1 {
		t.Fatalf("lenses before the schedule: %q, want Explore alone", got)
	}
	refreshes := func(r *lsptest.Records) int {
		n := 0
		for _, m := range r.Requests() {
			if m == protocol.MethodCodeLensRefresh {
				n++
			}
		}
		return n
	}
	// The refresh that follows the first reading of the stores, before the schedule.
	c.Await("the first code lens refresh", func(r *lsptest.Records) bool { return refreshes(r) >= 1 })
	var before int
	c.Snapshot(func(r *lsptest.Records) { before = refreshes(r) })

	sched := &schedule.File{
		Test:   schedule.Test{Module: "example.com/p", Package: "example.com/p", Name: "TestP"},
		Result: schedule.Summary{Steps: 1, Goroutines: 1, Preemptions: 1},
		Bug:    &schedule.Bug{Kind: "deadlock", Message: "all goroutines are blocked", Step: 1, G: -1},
		Steps:  []schedule.Step{{Kind: schedule.Run, G: 0}},
	}
	dir := filepath.Join(root, ".interleave", "schedules")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := sched.Save(filepath.Join(dir, "TestP-deadlock-20260101T000000.000.json")); err != nil {
		t.Fatal(err)
	}
	// Each refresh is followed by the client's codeLens request, as VS Code's: the one that
	// follows the schedule's reading returns Replay.
	for {
		c.Await("a code lens refresh", func(r *lsptest.Records) bool { return refreshes(r) > before })
		c.Snapshot(func(r *lsptest.Records) { before = refreshes(r) })
		got := titles()
		if len(got) == 2 && got[1] == "Replay deadlock (1 preemption)" {
			break
		}
		if len(got) != 1 {
			t.Fatalf("lenses after the schedule: %q, want Explore and Replay deadlock (1 preemption)", got)
		}
	}
	c.Shutdown()
}
