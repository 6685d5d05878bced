//go:build unix

package store_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine/store"
)

// TestFindModulePassesOverAFIFO: a FIFO named go.mod (a hostile checkout's) is passed over
// at once, and the walk finds the module above it; opening it the ordinary way waits for a
// writer for ever.
func TestFindModulePassesOverAFIFO(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/outer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(sub, "go.mod")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	type found struct {
		root, module string
		ok           bool
	}
	done := make(chan found, 1)
	go func() {
		r, m, ok := store.FindModule(sub)
		done <- found{r, m, ok}
	}()
	select {
	case f := <-done:
		if !f.ok || f.root != root || f.module != "example.com/outer" {
			t.Errorf("FindModule(%s) = %+v, want the module at %s", sub, f, root)
		}
	case <-time.After(time.Minute):
		if w, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil { // release the blocked open
			defer w.Close()
		}
		t.Fatal("FindModule waited on a FIFO named go.mod")
	}
}
