//go:build !unix

package dap

import (
	"fmt"
	"net"
)

// listenControl opens the control listener where there are no Unix domain sockets: on the
// loopback interface.
func listenControl() (*controlConn, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("control connection: %w", err)
	}
	return newControlConn(ln, ln.Addr().String(), func() {}), nil
}
