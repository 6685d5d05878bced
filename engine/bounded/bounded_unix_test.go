//go:build unix

package bounded

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFO: a FIFO without a writer is refused at once, whether the first look sees it or it
// takes the place of a regular file after that look (openChecked is what runs then): opening
// it for reading the ordinary way would wait for a writer for ever.
func TestFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "x.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, tc := range []struct {
		name string
		read func() error
	}{
		{"ReadFile", func() error { _, err := Schedule.ReadFile(fifo); return err }},
		{"ReadFileNoFollow", func() error { _, err := Schedule.ReadFileNoFollow(fifo); return err }},
		{"opened after the first look", func() error {
			f, _, err := Schedule.openChecked(fifo)
			if err == nil {
				f.Close()
			}
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- tc.read() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				// It blocks: a writer releases it, and the test fails.
				if w, werr := os.OpenFile(fifo, os.O_RDWR, 0); werr == nil {
					defer w.Close()
				}
				t.Fatalf("reading a FIFO without a writer blocked")
			}
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "not a regular file but a FIFO (named pipe)") {
				t.Fatalf("reading a FIFO = %v, want it refused as not a regular file", err)
			}
		})
	}
}
