//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReplayRefusesWhatIsNotAScheduleFile: interleave replay of a device, a FIFO without a
// writer, a file larger than a schedule may be, or a directory answers at once with an error
// that names the path and what it is (or its size and the limit), instead of reading until
// the process runs out of memory (/dev/zero, a 10 GB file) or waiting for ever (a FIFO).
func TestReplayRefusesWhatIsNotAScheduleFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sparse := filepath.Join(dir, "sparse.json")
	if err := os.WriteFile(sparse, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 256<<20+1); err != nil { // no disk used
		t.Fatal(err)
	}
	dirJSON := filepath.Join(dir, "x.json")
	if err := os.Mkdir(dirJSON, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		want       []string
	}{
		{"/dev/zero", "/dev/zero", []string{"/dev/zero: not a regular file but a character device"}},
		{"a FIFO", fifo, []string{fifo + ": not a regular file but a FIFO"}},
		{"a sparse file past the limit", sparse, []string{sparse + ": 256.0 MiB (268435457 bytes), more than 256 MiB (268435456 bytes), the limit of a schedule file"}},
		{"a directory named x.json", dirJSON, []string{dirJSON + ": not a regular file but a directory"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat(tc.path); err != nil {
				t.Skip(err)
			}
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- run([]string{"replay", tc.path}, &stdout, &stderr) }()
			var code int
			select {
			case code = <-done:
			case <-time.After(time.Minute):
				if w, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil { // release a blocked read
					defer w.Close()
				}
				t.Fatalf("interleave replay %s did not return", tc.path)
			}
			if code != 2 {
				t.Errorf("exit status %d, want 2", code)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr %q does not say %q", stderr.String(), w)
				}
			}
		})
	}
}
