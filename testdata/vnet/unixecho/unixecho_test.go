package unixecho

import (
	"net"
	"path/filepath"
	"testing"
)

func listen(t *testing.T) (net.Listener, string) {
	path := filepath.Join(t.TempDir(), "echo.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	go Serve(l)
	return l, path
}

// TestEcho: the client sends first; its line comes back.
func TestEcho(t *testing.T) {
	l, path := listen(t)
	defer l.Close()
	got, err := Echo(path, "ping")
	if err != nil || got != "ping\n" {
		t.Errorf("echo: %q, %v", got, err)
	}
}

// TestBanner: the client waits for a banner the server never sends, and the server waits for
// the client's line: neither writes.
func TestBanner(t *testing.T) {
	l, path := listen(t)
	defer l.Close()
	got, err := Banner(path, "ping")
	if err != nil || got != "ping\n" {
		t.Errorf("banner: %q, %v", got, err)
	}
}
