package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVirtualNetworkEndToEnd explores testdata/vnet, whose tests talk over net.Pipe, io.Pipe,
// loopback TCP, Unix sockets, and HTTP and HTTPS through net/http (httptest.NewServer,
// httptest.NewTLSServer, http.Server, http.Client): every test is explored under the engine
// (no execution abandoned for a goroutine blocked outside its control), the protocol
// deadlocks (over net.Pipe and over a Unix socket), the lost write, the requests racing a
// shutdown (a line server's and an http.Server's) and a handler's lost update across two
// concurrent requests (over HTTP and over TLS) are found, a three-second read deadline fires
// in virtual time, the clean tests pass with no notice, and the deadlock's and the lost
// updates' schedules replay.
func TestVirtualNetworkEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds six instrumented test binaries")
	}
	dir := filepath.Join(t.TempDir(), "vnet")
	if err := os.CopyFS(dir, os.DirFS("../../testdata/vnet")); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, ".interleave"))
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-json", "-saved=false", "-minimize", "0", "-schedules", "300", "./...")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (bugs found)\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if strings.Contains(out, "abandoned") || strings.Contains(out, "outside the engine") {
		t.Errorf("an execution was abandoned or blocked outside the engine:\n%s", out)
	}
	bugs := []struct{ test, kind, want string }{
		{"TestBothHandshake", "deadlock", "net.read at "},
		{"TestClose", "fail", "sink has 1 lines after Close"},
		{"TestRequestDuringShutdown", "fail", "request neither refused nor answered"},
		{"TestBanner", "deadlock", "net.read at "},
		{"TestLostHit", "fail", "1 hits counted after 2 requests"},
		{"TestTLSLostHit", "fail", "1 hits counted after 2 requests over TLS"},
		{"TestGetDuringShutdown", "fail", "request neither refused nor answered"},
	}
	for _, b := range bugs {
		e := finalEvent(t, out, b.test)
		if e.Action != "fail" || e.Bug == nil || e.Bug.Kind != b.kind || !strings.Contains(e.Bug.Message, b.want) {
			t.Errorf("%s: final event %+v (bug %+v), want a %s bug with %q", b.test, e, e.Bug, b.kind, b.want)
		}
	}
	if e := finalEvent(t, out, "TestBothHandshake"); e.Bug != nil && !strings.Contains(e.Bug.Message, "protocol.go:") {
		t.Errorf("the deadlock's reads are not placed in protocol.go: %q", e.Bug.Message)
	}
	if e := finalEvent(t, out, "TestBanner"); e.Bug != nil && !strings.Contains(e.Bug.Message, "unixecho.go:") {
		t.Errorf("the Unix socket deadlock's reads are not placed in unixecho.go: %q", e.Bug.Message)
	}
	for _, test := range []string{"TestGreetHandshake", "TestCloseAndWait", "TestRequests", "TestSilentServer", "TestPipeAnswer",
		"TestEcho", "TestLockedHits", "TestTLSLockedHits", "TestGetThenShutdown", "TestDefaultMux"} {
		e := finalEvent(t, out, test)
		if e.Action != "pass" || e.Notice != "" {
			t.Errorf("%s: %s, notice %q (bug %+v), want a pass with no notice", test, e.Action, e.Notice, e.Bug)
		}
		// TestSilentServer waits three seconds natively in each execution: its schedules
		// take no real time.
		if test == "TestSilentServer" && (e.Schedules == nil || *e.Schedules < 2 || e.Elapsed == nil || *e.Elapsed > 3) {
			t.Errorf("TestSilentServer: %v schedules in %v s, want several, in less than one native run's 3 s", e.Schedules, e.Elapsed)
		}
		// TestDefaultMux registers its handler on http.DefaultServeMux in every execution:
		// each starts with the mux as it was (empty), or the second would panic.
		if test == "TestDefaultMux" && (e.Schedules == nil || *e.Schedules < 2) {
			t.Errorf("TestDefaultMux: %v schedules, want several", e.Schedules)
		}
	}

	for _, r := range []struct{ test, want string }{
		{"TestBothHandshake", "deadlock found by replay"},
		{"TestLostHit", "fail found by replay"},
		{"TestTLSLostHit", "fail found by replay"},
	} {
		e := finalEvent(t, out, r.test)
		if e.Bug == nil {
			continue
		}
		code, rout, errOut := interleaveIn(t, dir, nil, "replay", e.Bug.Schedule)
		if code != 1 || !strings.Contains(rout, r.want) {
			t.Errorf("replay %s: exit %d, want 1 and %q\nstdout:\n%s\nstderr:\n%s", r.test, code, r.want, rout, errOut)
		}
	}
}
