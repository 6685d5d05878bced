//go:build unix

package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/interleave-dev/interleave/lsp/lsptest"
)

// TestStoreWithDevicesAndFIFOs: a results store holding a link to /dev/zero and a FIFO
// without a writer, each named as a document, does not take the language server down (out
// of memory) or stop it (waiting on the FIFO): each is named in the log as skipped, the
// store's good document still gives its diagnostic, and the server answers the next request.
// Nor do source files that are FIFOs: one a race names, one asked for code lenses.
func TestStoreWithDevicesAndFIFOs(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module m\n\ngo 1.22\n",
		"a.go":   "package m\n\nfunc f(p *int) {\n\t*p++\n}\n",
		".interleave/findings/m.TestA.json": `{"format": "interleave-findings", "version": 1,
 "test": {"module": "m", "package": "m", "name": "TestA"}, "time": "2026-01-01T00:00:00Z", "points": "all", "schedules": 10,
 "races": [{"a": {"pos": "a.go:4:3", "file": "a.go", "line": 4, "col": 3, "op": "write", "goroutine": 1},
            "b": {"pos": "a.go:4:3", "file": "a.go", "line": 4, "col": 3, "op": "read", "goroutine": 2},
            "firstSchedule": 1, "schedules": 4}]}`,
		// A race whose source file is a FIFO: placing its position must not wait on it.
		".interleave/findings/m.TestB.json": `{"format": "interleave-findings", "version": 1,
 "test": {"module": "m", "package": "m", "name": "TestB"}, "time": "2026-01-01T00:00:00Z", "points": "all", "schedules": 10,
 "races": [{"a": {"pos": "pipe.go:4:3", "file": "pipe.go", "line": 4, "col": 3, "op": "write", "goroutine": 1},
            "b": {"pos": "pipe.go:4:3", "file": "pipe.go", "line": 4, "col": 3, "op": "read", "goroutine": 2},
            "firstSchedule": 1, "schedules": 4}]}`,
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	zero := filepath.Join(dir, ".interleave", "findings", "zero.json")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, ".interleave", "schedules", "fifo.json")
	if err := os.MkdirAll(filepath.Dir(fifo), 0o755); err != nil {
		t.Fatal(err)
	}
	pipe, testPipe := filepath.Join(dir, "pipe.go"), filepath.Join(dir, "pipe_test.go")
	for _, p := range []string{fifo, pipe, testPipe} {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
		// Were the server to wait on a FIFO, the test's end releases it (and it fails, as
		// Await or Call has timed out).
		t.Cleanup(func() {
			if w, err := os.OpenFile(p, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
		})
	}

	c := lsptest.Start(t, exe, dir)
	c.Initialize(lsptest.VSCodeInitialize([]string{dir}, nil))
	logged := func(r *lsptest.Records, path, what string) bool {
		for _, l := range r.Logs() {
			if strings.Contains(l.Message, "skipped a results-store document") && strings.Contains(l.Message, path+": "+what) {
				return true
			}
		}
		return false
	}
	a := filepath.Join(dir, "a.go")
	c.Await("both skipped, the race published", func(r *lsptest.Records) bool {
		return logged(r, zero, "not a regular file but a character device") &&
			logged(r, fifo, "not a regular file but a FIFO") && len(r.Diagnostics(a)) == 1
	})
	// Code lenses of a test file that is a FIFO: none, at once.
	var lenses []protocol.CodeLens
	if err := c.Call(protocol.MethodTextDocumentCodeLens, &protocol.CodeLensParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: protocol.DocumentURI("file://" + testPipe)}}, &lenses); err != nil || len(lenses) != 0 {
		t.Errorf("code lenses of a FIFO: %v, %v; want none", lenses, err)
	}
	c.Shutdown()
}
