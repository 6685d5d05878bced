//go:build unix

package dap

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
)

// listenControl opens the control listener: a Unix domain socket in a new directory that only
// this user can enter (mode 0700), so that no other user's process can connect in the test
// process's place, and the test process needs no network code (control's dial).
func listenControl() (*controlConn, error) {
	dir, err := os.MkdirTemp("", "interleave-dap-")
	if err != nil {
		return nil, fmt.Errorf("control connection: %w", err)
	}
	path := filepath.Join(dir, "control")
	if len(path) > maxSocketPath {
		// A long TMPDIR (macOS's are 50 bytes and more): the socket's path must fit in
		// sockaddr_un.
		os.Remove(dir)
		if dir, err = os.MkdirTemp("/tmp", "interleave-dap-"); err != nil {
			return nil, fmt.Errorf("control connection: %w", err)
		}
		path = filepath.Join(dir, "control")
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("control connection: %w", err)
	}
	return newControlConn(ln, "unix:"+path, func() { os.RemoveAll(dir) }), nil
}

// maxSocketPath is the longest path of a Unix domain socket on every Unix (sockaddr_un's
// sun_path holds 104 bytes on macOS and the BSDs, 108 on Linux, with the terminating NUL).
const maxSocketPath = 103
