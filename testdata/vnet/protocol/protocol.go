// Package protocol is a two-party handshake over a connection: each side sends its hello
// and reads the other's. Handshake as written reads first, so when both ends use it neither
// ever writes: a protocol deadlock (over net.Pipe; over TCP the same).
package protocol

import (
	"fmt"
	"io"
	"net"
)

// Handshake reads the peer's hello, then sends name's.
func Handshake(c net.Conn, name string) (peer string, err error) {
	buf := make([]byte, 5)
	if _, err := io.ReadFull(c, buf); err != nil {
		return "", fmt.Errorf("read hello: %w", err)
	}
	if _, err := c.Write([]byte(name)); err != nil {
		return "", fmt.Errorf("write hello: %w", err)
	}
	return string(buf), nil
}

// Greet sends name's hello, then reads the peer's: the order that works against Handshake.
func Greet(c net.Conn, name string) (peer string, err error) {
	if _, err := c.Write([]byte(name)); err != nil {
		return "", fmt.Errorf("write hello: %w", err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(c, buf); err != nil {
		return "", fmt.Errorf("read hello: %w", err)
	}
	return string(buf), nil
}
