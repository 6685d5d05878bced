//go:build !linux

package dap

import "net"

// CheckPeer accepts every connection where the system does not say who owns the peer's
// socket to the standard library: the port is on the loopback interface only.
func CheckPeer(conn net.Conn) error { return nil }
