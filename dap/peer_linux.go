package dap

import (
	"fmt"
	"net"
	"os"
)

// CheckPeer refuses a connection whose other end is a process of another user.
func CheckPeer(conn net.Conn) error {
	local, ok1 := conn.LocalAddr().(*net.TCPAddr)
	remote, ok2 := conn.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return nil // not TCP: a pipe or a Unix socket the caller made
	}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		// The peer's socket: its local address is our remote one.
		uid, found, err := socketOwner(f, remote, local)
		f.Close()
		if err != nil {
			return fmt.Errorf("check the connection's user: %w", err)
		}
		if found {
			if me := os.Getuid(); uid != me {
				return fmt.Errorf("connection from %s refused: it belongs to user %d, and the adapter serves only its own user (%d)", remote, uid, me)
			}
			return nil
		}
	}
	return fmt.Errorf("connection from %s refused: its user could not be found in /proc/net/tcp", remote)
}
