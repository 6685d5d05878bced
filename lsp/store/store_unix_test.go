//go:build unix

package store_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine/bounded"
	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/lsp/store"
)

// TestRefreshSkipsWhatIsNotADocument: a store "document" that is a link to /dev/zero, a FIFO
// without a writer, a link to a directory, or a file larger than its kind's limit is skipped
// and reported once, at once, beside the documents that are read — not read until the
// language server runs out of memory, or waited on for ever.
func TestRefreshSkipsWhatIsNotADocument(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "go.mod"), "module m\n")
	dir := filepath.Join(root, filepath.FromSlash(findings.Dir))
	write(t, filepath.Join(dir, "m.TestA.json"), goodFindings)
	zero := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(root, filepath.FromSlash(store.SchedulesDir), "fifo.json")
	write(t, filepath.Join(filepath.Dir(fifo), "placeholder"), "")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	linkDir := filepath.Join(dir, "dir.json")
	if err := os.Symlink(root, linkDir); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(root, filepath.FromSlash(findings.InstrumentDir), "big.json")
	write(t, big, "")
	if err := os.Truncate(big, bounded.Document.Max+1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	want := map[string]string{
		zero:    "not a regular file but a character device",
		fifo:    "not a regular file but a FIFO",
		linkDir: "not a regular file but a directory",
		big:     "64.0 MiB (67108865 bytes), more than 64 MiB (67108864 bytes), the limit of a results-store document",
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		os.Remove(zero)
		delete(want, zero)
	}

	s := store.New(store.Module{Root: root, Path: "m"})
	for i, wantErrs := range []int{len(want), 0} { // reported once
		type result struct {
			changed bool
			errs    []error
		}
		done := make(chan result, 1)
		go func() {
			c, errs := s.Refresh()
			done <- result{c, errs}
		}()
		var r result
		select {
		case r = <-done:
		case <-time.After(time.Minute):
			if w, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil { // release a blocked read
				defer w.Close()
			}
			t.Fatalf("Refresh %d did not return", i+1)
		}
		if len(r.errs) != wantErrs {
			t.Errorf("Refresh %d: %d errors %v, want %d", i+1, len(r.errs), r.errs, wantErrs)
		}
		for _, err := range r.errs {
			ok := false
			for path, what := range want {
				if strings.Contains(err.Error(), path+": "+what) {
					ok = true
				}
			}
			if !ok {
				t.Errorf("Refresh %d: unexpected error %v", i+1, err)
			}
		}
		if snap := s.Snapshot(); len(snap.Findings) != 1 || len(snap.Findings[0].Races) != 1 {
			t.Errorf("Refresh %d: the good document is not read beside the skipped ones: %+v", i+1, snap.Findings)
		}
	}
}

// TestModulesPassOverAFIFO: a FIFO named go.mod below a workspace folder is not a module,
// and the search does not wait on it for a writer.
func TestModulesPassOverAFIFO(t *testing.T) {
	folder := t.TempDir()
	write(t, filepath.Join(folder, "a", "go.mod"), "module example.com/a\n")
	fifo := filepath.Join(folder, "b", "go.mod")
	write(t, filepath.Join(folder, "b", "placeholder"), "")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan []store.Module, 1)
	go func() { done <- store.Modules(folder) }()
	select {
	case ms := <-done:
		if len(ms) != 1 || ms[0].Path != "example.com/a" {
			t.Errorf("Modules = %+v, want example.com/a alone", ms)
		}
	case <-time.After(time.Minute):
		if w, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil { // release the blocked open
			defer w.Close()
		}
		t.Fatal("Modules waited on a FIFO named go.mod")
	}
	if _, ok := store.FindModule(filepath.Dir(fifo)); ok {
		t.Errorf("FindModule(%s): a module, want none", filepath.Dir(fifo))
	}
}
