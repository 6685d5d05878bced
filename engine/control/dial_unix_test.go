//go:build unix

package control

import (
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// listenAsAdapter listens where the debug adapter does (package dap's listenControl): a Unix
// domain socket in a directory of the test's.
func listenAsAdapter(t *testing.T) (net.Listener, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "control")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	return ln, "unix:" + path
}

// TestDialRefusesWhatIsNoSocket: an address that is not unix:PATH, or a path with no socket
// listening, is an error that names it; nothing is left open.
func TestDialRefusesWhatIsNoSocket(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nobody")
	for _, tt := range []struct {
		addr, want string
	}{
		{"127.0.0.1:4711", `control address "127.0.0.1:4711": want unix:PATH`},
		{"unix:", `control address "unix:": want unix:PATH`},
		{"unix:" + missing, "connect " + missing + ": " + syscall.ENOENT.Error()},
	} {
		conn, err := dial(tt.addr)
		if err == nil {
			conn.Close()
			t.Errorf("dial(%q) connected", tt.addr)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("dial(%q) = %v, want an error with %q", tt.addr, err, tt.want)
		}
	}
}

// TestDialedConnectionClosesUnderARead: the connection dial makes is in the runtime's poller,
// as a net.Conn is: closing it ends a read in progress (the session's reader, at the end of a
// session the adapter did not end), and the peer sees the end.
func TestDialedConnectionClosesUnderARead(t *testing.T) {
	ln, addr := listenAsAdapter(t)
	defer ln.Close()
	conn, err := dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	peer, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	if _, err := conn.Write([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := peer.Read(buf); err != nil || string(buf) != "hello\n" {
		t.Fatalf("the adapter read %q, %v", buf, err)
	}
	read := make(chan error, 1)
	go func() {
		_, err := conn.Read(buf)
		read <- err
	}()
	// Closed under the read, once it waits in the poller: a read blocked in the system call
	// would not end.
	if state := readerState(t, "TestDialedConnectionClosesUnderARead.func"); state != "IO wait" {
		t.Fatalf("the reader waits in state %q, want IO wait (the runtime's poller)", state)
	}
	conn.Close()
	if err := <-read; err == nil {
		t.Fatal("a read of the closed connection returned no error")
	} else if !strings.Contains(err.Error(), os.ErrClosed.Error()) {
		t.Fatalf("a read of the closed connection: %v, want %v", err, os.ErrClosed)
	}
	if n, err := peer.Read(buf); n != 0 || err == nil {
		t.Fatalf("the adapter read %d bytes, %v after the close, want the end", n, err)
	}
}

// readerState returns the wait state of the goroutine whose stack holds fn once it is blocked
// in a read: the poller's (IO wait) or a system call's (syscall).
func readerState(t *testing.T, fn string) string {
	t.Helper()
	buf := make([]byte, 1<<20)
	for {
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			header, _, _ := strings.Cut(g, "\n")
			_, state, _ := strings.Cut(header, "[")
			state, _, _ = strings.Cut(state, "]")
			state, _, _ = strings.Cut(state, ",") // "IO wait, 2 minutes"
			if strings.Contains(g, fn) && (state == "IO wait" || state == "syscall") {
				return state
			}
		}
		runtime.Gosched()
	}
}
