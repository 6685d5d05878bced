package lsp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/interleave-dev/interleave/lsp"
	"github.com/interleave-dev/interleave/lsp/lsptest"
)

// TestRobustness: requests before initialize, unknown methods, malformed messages and
// changes to documents that are not open are answered or skipped; the session goes on.
func TestRobustness(t *testing.T) {
	dir := racesModule(t)
	c := lsptest.Start(t, exe, dir)
	err := c.Call(protocol.MethodTextDocumentHover, &protocol.HoverParams{}, nil)
	if err == nil || !strings.Contains(err.Error(), "before initialize") {
		t.Errorf("hover before initialize: %v, want a not-initialized error", err)
	}
	c.Notify(protocol.MethodTextDocumentDidOpen, map[string]any{"textDocument": 3})
	for _, body := range []string{`{"jsonrpc": "2.0", "id": 99, "method": `, `[1, 2]`, `{}`, "\x00\xff"} {
		if err := c.WriteRaw([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	c.Initialize(lsptest.VSCodeInitialize([]string{dir}, nil))
	if err := c.Call("textDocument/unknownThing", map[string]any{}, nil); err == nil || !strings.Contains(err.Error(), "method not found") {
		t.Errorf("an unknown method: %v, want method not found", err)
	}
	c.Notify("$/unknownNotification", nil)
	if err := c.Call(protocol.MethodTextDocumentHover, "not an object", nil); err == nil {
		t.Error("hover with params of the wrong type: no error")
	}
	if err := c.Call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: "interleave.runTest", Arguments: []any{"/nonexistent", "TestX"}}, nil); err == nil {
		t.Error("runTest in a directory that does not exist: no error")
	}
	if err := c.Call(protocol.MethodInitialize, lsptest.VSCodeInitialize([]string{dir}, nil), nil); err == nil {
		t.Error("a second initialize: no error")
	}
	path := filepath.Join(dir, "racy/counter/counter.go")
	change(c, path, 2, protocol.Range{Start: pos(0, 0), End: pos(0, 0)}, "x")
	// Still serving: the race is published and hovers.
	c.Await("counter.go's race", func(r *lsptest.Records) bool { return len(r.Diagnostics(path)) == 1 })
	if r := hoverRange(t, c, path, pos(18, 2)); r == nil {
		t.Error("no hover after the bad messages")
	}
	c.Shutdown()
}

// frame frames a message body as the protocol's base layer does.
func frame(body []byte) []byte {
	return append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))), body...)
}

// FuzzServer feeds a server any sequence of message bodies (separated by 0x1e) between a
// VS Code initialize and a shutdown: it never panics, never hangs, and exits when told.
func FuzzServer(f *testing.F) {
	dir := f.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "a_test.go"), []byte("package m\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {}\n"), 0o644)
	file := string(uri.File(filepath.Join(dir, "a_test.go")))
	msg := func(id int, method string, params any) string {
		m := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
		if id > 0 {
			m["id"] = id
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	open := msg(0, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": file, "languageId": "go", "version": 1, "text": "package m\n\nfunc TestA(t *testing.T) {}\n"}})
	edit := func(v int, l1, c1, l2, c2 int, text string) string {
		return msg(0, "textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": file, "version": v},
			"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": l1, "character": c1}, "end": map[string]any{"line": l2, "character": c2}}, "text": text}}})
	}
	seeds := [][]string{
		{open, edit(2, 0, 0, 0, 0, "// x\n"), edit(4, 1, 3, 0, 1, ""), edit(3, 9, 9, 99, 99, "é𝄞\n")},
		{open, msg(5, "textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": file}, "position": map[string]any{"line": 2, "character": 6}})},
		{msg(6, "textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": file}}), msg(7, "textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": file}})},
		{`{"jsonrpc":"2.0","id":8,"method":"unknown/method"}`, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":8}}`, `{not json`, `null`},
		{msg(9, "workspace/executeCommand", map[string]any{"command": "interleave.runTest", "arguments": []any{dir, "TestA"}})},
		{msg(0, "workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": "file:///nonexistent/.interleave/findings/x.json", "type": 1}}})},
		{msg(0, "workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{"added": []any{map[string]any{"uri": "not a uri"}}, "removed": []any{}}})},
	}
	for _, s := range seeds {
		f.Add([]byte(strings.Join(s, "\x1e")))
	}
	init := lsptest.VSCodeInitialize([]string{dir}, func(p map[string]any) {
		// No registration round trip and no process to watch: the fuzz input is the client.
		delete(p["capabilities"].(map[string]any)["workspace"].(map[string]any), "didChangeWatchedFiles")
		p["processId"] = nil
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		var in bytes.Buffer
		in.Write(frame([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":` + string(init) + `}`)))
		in.Write(frame([]byte(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)))
		for _, part := range bytes.Split(data, []byte{0x1e}) {
			if len(part) > 0 {
				in.Write(frame(part))
			}
		}
		in.Write(frame([]byte(`{"jsonrpc":"2.0","id":100000,"method":"shutdown"}`)))
		in.Write(frame([]byte(`{"jsonrpc":"2.0","method":"exit"}`)))
		w := &syncWriter{w: new(bytes.Buffer)}
		srv := lsp.NewServer(lsp.Config{Executable: "/nonexistent/interleave", PollInterval: time.Hour, Log: w})
		done := make(chan int, 1)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { done <- srv.Serve(ctx, io.NopCloser(&in), io.Discard) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("the server did not end (log:\n%s)", w.String())
		}
		if l := w.String(); strings.Contains(l, "panic") {
			t.Fatalf("a handler panicked:\n%s", l)
		}
	})
}

// syncWriter is a log that the server's goroutines write and the test reads.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
