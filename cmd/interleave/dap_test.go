package main

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/interleave-dev/interleave/dap/daptest"
)

// buildInterleave builds the interleave command into a temporary directory.
func buildInterleave(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "interleave")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestDAPOverStdio runs interleave dap as VS Code does, as a child process spoken to on its
// standard input and output: explore lockorder to its deadlock, read a local through Delve,
// disconnect, and the adapter exits.
func TestDAPOverStdio(t *testing.T) {
	bin := buildInterleave(t)
	dir := filepath.Join(t.TempDir(), "lockorder")
	if err := os.CopyFS(dir, os.DirFS("../../testdata/examples/lockorder")); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, ".interleave"))
	cmd := exec.Command(bin, "dap")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := daptest.New(out, in)
	c.Timeout = 5 * time.Minute
	err = c.Start(map[string]any{"type": "interleave", "request": "launch", "mode": "explore", "program": dir, "test": "TestOppositeTransfers"}, nil)
	if err != nil {
		t.Fatalf("%v\nstderr: %s", err, stderr.String())
	}
	st, err := c.Stopped()
	if err != nil || st.Body.Reason != "exception" {
		t.Fatalf("stopped %+v, %v", st, err)
	}
	r, err := c.Call("stackTrace", map[string]any{"threadId": st.Body.ThreadId})
	if err != nil {
		t.Fatal(err)
	}
	top := r.(*godap.StackTraceResponse).Body.StackFrames[0]
	if _, err := c.Call("scopes", map[string]any{"frameId": top.Id}); err != nil {
		t.Fatal(err)
	}
	ev, err := c.Call("evaluate", map[string]any{"expression": "amount", "frameId": top.Id})
	if err != nil || (ev.(*godap.EvaluateResponse).Body.Result != "30" && ev.(*godap.EvaluateResponse).Body.Result != "50") {
		t.Fatalf("evaluate amount: %v, %v", ev, err)
	}
	if _, err := c.Call("disconnect", nil); err != nil {
		t.Fatal(err)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("interleave dap: %v\n%s", err, stderr.String())
	}
}

// TestDAPListen serves on a TCP port of the loopback interface only.
func TestDAPListen(t *testing.T) {
	for _, bad := range []string{"0.0.0.0:4711", "example.com:4711", "127.0.0.1:port"} {
		if _, err := loopback(bad); err == nil {
			t.Errorf("loopback(%q): no error", bad)
		}
	}
	for in, want := range map[string]string{"4711": "127.0.0.1:4711", ":4711": "127.0.0.1:4711", "localhost:0": "127.0.0.1:0"} {
		if got, err := loopback(in); err != nil || got != want {
			t.Errorf("loopback(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bin := buildInterleave(t)
	cmd := exec.Command(bin, "dap", "-listen", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "DAP server listening at: ")
	if err != nil || !ok || !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Fatalf("first line %q, %v", line, err)
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := daptest.New(conn, conn)
	r, err := c.Call("initialize", map[string]any{"adapterID": "interleave"})
	if err != nil || !r.(*godap.InitializeResponse).Body.SupportsStepBack {
		t.Fatalf("initialize: %v, %v", r, err)
	}
	if _, err := c.Call("disconnect", nil); err != nil {
		t.Fatal(err)
	}
}
