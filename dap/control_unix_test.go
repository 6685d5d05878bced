//go:build unix

package dap

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestControlSocketIsTheUsersOnly: the control listener is a Unix domain socket in a directory
// only this user can enter, so that no other user's process can connect in the test process's
// place; the directory is gone once the adapter stops listening.
func TestControlSocketIsTheUsersOnly(t *testing.T) {
	c, err := listenControl()
	if err != nil {
		t.Fatal(err)
	}
	path, ok := strings.CutPrefix(c.addr(), "unix:")
	if !ok || len(path) > maxSocketPath {
		t.Fatalf("control address %q: want unix: and a path of at most %d bytes", c.addr(), maxSocketPath)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o700 {
		t.Errorf("the socket's directory %s has mode %v, want 0700", dir, perm)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode().Type() != os.ModeSocket {
		t.Errorf("%s is not a socket: %v, %v", path, fi, err)
	}
	c.close()
	c.close() // twice, as a target ending on two paths does
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the socket's directory is left after close: %v", err)
	}
}
