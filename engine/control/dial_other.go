//go:build !unix

package control

import (
	"io"
	"net"
)

// dial connects to the debug adapter's control address: where there are no Unix domain
// sockets, a TCP address on the loopback interface (package dap's listenControl).
func dial(addr string) (io.ReadWriteCloser, error) {
	return net.Dial("tcp", addr)
}
