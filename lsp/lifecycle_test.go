package lsp_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/interleave-dev/interleave/lsp"
	"github.com/interleave-dev/interleave/lsp/lsptest"
)

// TestLifecycle: initialize announces exactly the implemented capabilities, and shutdown
// then exit ends the process with status 0.
func TestLifecycle(t *testing.T) {
	dir := t.TempDir()
	c := lsptest.Start(t, exe, dir)
	res := c.Initialize(lsptest.VSCodeInitialize([]string{dir}, nil))
	got, _ := json.Marshal(res.Capabilities)
	want, _ := json.Marshal(lsp.Capabilities())
	var norm protocol.ServerCapabilities // as the client decodes them: the same key order
	json.Unmarshal(want, &norm)
	want, _ = json.Marshal(norm)
	if string(got) != string(want) {
		t.Errorf("capabilities %s, want %s", got, want)
	}
	for _, k := range []string{`"hoverProvider":true`, `"codeLensProvider":{}`, `"change":2`, `"openClose":true`, `"commands":["interleave.runTest"]`, `"workspaceFolders":{"supported":true,"changeNotifications":true}`} {
		if !strings.Contains(string(got), k) {
			t.Errorf("capabilities %s: no %s", got, k)
		}
	}
	for _, k := range []string{"completionProvider", "definitionProvider", "documentSymbolProvider", "semanticTokensProvider", "renameProvider"} {
		if strings.Contains(string(got), k) {
			t.Errorf("capabilities %s announce %s, which is not implemented", got, k)
		}
	}
	if res.ServerInfo == nil || res.ServerInfo.Name != "interleave" {
		t.Errorf("serverInfo %+v", res.ServerInfo)
	}
	// VS Code supports dynamic registration: the server asks it to watch the stores.
	c.Await("the watcher registration", func(r *lsptest.Records) bool { return len(r.Registrations()) > 0 })
	c.Snapshot(func(r *lsptest.Records) {
		reg := r.Registrations()[0]
		b, _ := json.Marshal(reg.RegisterOptions)
		if reg.Method != protocol.MethodWorkspaceDidChangeWatchedFiles || !strings.Contains(string(b), lsp.StoreGlob) {
			t.Errorf("registration %s %s, want %s for %s", reg.Method, b, protocol.MethodWorkspaceDidChangeWatchedFiles, lsp.StoreGlob)
		}
	})
	c.Shutdown()
}

// TestExitWithoutShutdown: exit before shutdown is status 1; a client that closes the
// stream leaves no server behind.
func TestExitWithoutShutdown(t *testing.T) {
	dir := t.TempDir()
	c := lsptest.Start(t, exe, dir)
	c.Initialize(lsptest.VSCodeInitialize([]string{dir}, nil))
	c.Notify(protocol.MethodExit, nil)
	if err := c.Wait(); err == nil {
		t.Error("exit without shutdown: status 0, want 1")
	}

	c = lsptest.Start(t, exe, dir)
	c.Initialize(lsptest.VSCodeInitialize([]string{dir}, nil))
	c.CloseStdin()
	if err := c.Wait(); err == nil {
		t.Error("a closed stream: status 0, want 1")
	}
}

// TestHelp: interleave lsp -h describes the server.
func TestHelp(t *testing.T) {
	out, err := exec.Command(exe, "lsp", "-h").CombinedOutput()
	if err != nil {
		t.Fatalf("interleave lsp -h: %v\n%s", err, out)
	}
	for _, want := range []string{"usage: interleave lsp", "Language Server Protocol", "-poll"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("interleave lsp -h: no %q in\n%s", want, out)
		}
	}
}
