//go:build unix

package dap_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/dap"
)

// TestLaunchRefusesWhatIsNotAScheduleFile: a replay launch whose "scheduleFile" is
// /dev/zero, a FIFO without a writer, a file larger than a schedule may be or a directory is
// answered at once with an error that names it — not read until the adapter runs out of
// memory, nor waited on for ever — and the session serves the requests that follow.
func TestLaunchRefusesWhatIsNotAScheduleFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // were the adapter to wait on the FIFO, this releases it
		if w, err := os.OpenFile(fifo, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	sparse := filepath.Join(dir, "sparse.json")
	if err := os.WriteFile(sparse, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 10<<30); err != nil { // 10 GiB, no disk used
		t.Fatal(err)
	}
	dirJSON := filepath.Join(dir, "x.json")
	if err := os.Mkdir(dirJSON, 0o755); err != nil {
		t.Fatal(err)
	}
	c := driver{t, session(t, dap.Config{NoDelve: true})}
	c.Timeout = time.Minute
	c.call("initialize", map[string]any{"adapterID": "interleave"})
	for _, tc := range []struct{ path, want string }{
		{"/dev/zero", "/dev/zero: not a regular file but a character device"},
		{fifo, fifo + ": not a regular file but a FIFO"},
		{sparse, sparse + ": 10 GiB (10737418240 bytes), more than 256 MiB (268435456 bytes), the limit of a schedule file"},
		{dirJSON, dirJSON + ": not a regular file but a directory"},
	} {
		if _, err := os.Stat(tc.path); err != nil {
			t.Logf("%s: %v", tc.path, err)
			continue
		}
		_, err := c.Call("launch", map[string]any{"type": "interleave", "request": "launch", "mode": "replay", "scheduleFile": tc.path})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("launch with scheduleFile %s: %v, want an error saying %q", tc.path, err, tc.want)
		}
	}
	// Still serving.
	if th := c.threads(); len(th) != 1 {
		t.Errorf("threads after the refused launches: %+v", th)
	}
	c.call("disconnect", nil)
}
