package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/interleave-dev/interleave/lsp/lsptest"
)

// fixedCounter is racy/counter/counter.go with its race fixed.
const fixedCounter = `package counter

import "sync"

// Counter counts events.
type Counter struct {
	mu sync.Mutex
	n  int
}

// Inc adds one to the count.
func (c *Counter) Inc() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

// Value returns the count.
func (c *Counter) Value() int {
	return c.n
}
`

// TestStoreUpdates: while a session runs, interleave test writes the store: new findings
// appear, a fixed race disappears, and a corrupt document is named once in the log and
// skipped while the others still show — with a client that watches the store for the server
// (VS Code: the test sends didChangeWatchedFiles as VS Code's watcher would) and with one
// that cannot (the server polls).
func TestStoreUpdates(t *testing.T) {
	for _, watched := range []bool{true, false} {
		name := "polled"
		if watched {
			name = "watched"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			copyTree(t, "../testdata/races", dir)
			store := filepath.Join(dir, ".interleave")
			var edit func(map[string]any)
			if !watched {
				edit = func(p map[string]any) {
					ws := p["capabilities"].(map[string]any)["workspace"].(map[string]any)
					delete(ws, "didChangeWatchedFiles")
				}
			}
			c := lsptest.Start(t, exe, dir, "-poll", "100ms")
			c.Initialize(lsptest.VSCodeInitialize([]string{dir}, edit))
			// notifyWatched sends what VS Code's file watcher would for the store's documents
			// changed since before.
			before := storeFiles(store)
			notifyWatched := func() {
				if !watched {
					return
				}
				after := storeFiles(store)
				var evs []*protocol.FileEvent
				for p, mod := range after {
					if old, ok := before[p]; !ok {
						evs = append(evs, &protocol.FileEvent{Type: protocol.FileChangeTypeCreated, URI: uri.File(p)})
					} else if old != mod {
						evs = append(evs, &protocol.FileEvent{Type: protocol.FileChangeTypeChanged, URI: uri.File(p)})
					}
				}
				for p := range before {
					if _, ok := after[p]; !ok {
						evs = append(evs, &protocol.FileEvent{Type: protocol.FileChangeTypeDeleted, URI: uri.File(p)})
					}
				}
				before = after
				c.Notify(protocol.MethodWorkspaceDidChangeWatchedFiles, &protocol.DidChangeWatchedFilesParams{Changes: evs})
			}
			if watched {
				c.Await("the watcher's registration", func(r *lsptest.Records) bool { return len(r.Registrations()) == 1 })
			}
			counter := filepath.Join(dir, "racy/counter/counter.go")
			config := filepath.Join(dir, "racy/lazyinit/config.go")

			// New findings appear.
			interleave(t, dir, []int{0}, "test", "-json", "-schedules", "100", "./racy/counter", "./racy/lazyinit")
			notifyWatched()
			c.Await("the new races", func(r *lsptest.Records) bool {
				return len(r.Diagnostics(counter)) == 1 && len(r.Diagnostics(config)) == 3
			})

			// A corrupt document is named once and skipped.
			bad := filepath.Join(store, "findings", "races_racy_other.TestBroken.json")
			if err := os.WriteFile(bad, []byte(`{"format": "interleave-findings", "version": 1, "races": [{"a": `), 0o644); err != nil {
				t.Fatal(err)
			}
			notifyWatched()
			c.Await("the corrupt document in the log", func(r *lsptest.Records) bool {
				for _, l := range r.Logs() {
					if strings.Contains(l.Message, bad) {
						return true
					}
				}
				return false
			})

			// The race is fixed; the next run's document has no races: its diagnostic goes.
			if err := os.WriteFile(counter, []byte(fixedCounter), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(bad, []byte(`{"format": "interleave-findings", "version": 1, "races": [{"b": `), 0o644); err != nil {
				t.Fatal(err)
			}
			interleave(t, dir, []int{0}, "test", "-json", "-schedules", "100", "./racy/counter")
			notifyWatched()
			c.Await("the fixed race gone, the others kept", func(r *lsptest.Records) bool {
				return r.Published(counter) && len(r.Diagnostics(counter)) == 0 && len(r.Diagnostics(config)) == 3
			})
			c.Snapshot(func(r *lsptest.Records) {
				n := 0
				for _, l := range r.Logs() {
					if strings.Contains(l.Message, bad) {
						n++
						if l.Type != protocol.MessageTypeWarning {
							t.Errorf("log %q: type %v, want a warning", l.Message, l.Type)
						}
					}
				}
				if n != 1 {
					t.Errorf("the corrupt document was named %d times in the log, want once", n)
				}
			})
			c.Shutdown()
		})
	}
}

// storeFiles returns the documents of a store with their modification times.
func storeFiles(store string) map[string]string {
	out := make(map[string]string)
	filepath.Walk(store, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".json") {
			out[p] = fmt.Sprint(info.ModTime(), info.Size())
		}
		return nil
	})
	return out
}
