//go:build !unix

package control

import (
	"net"
	"testing"
)

// listenAsAdapter listens where the debug adapter does (package dap's listenControl): on the
// loopback interface.
func listenAsAdapter(t *testing.T) (net.Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln, ln.Addr().String()
}
