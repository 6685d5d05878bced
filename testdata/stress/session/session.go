// Package session answers requests over a net.Conn. It is the bundled example of a hang
// that only some inputs reach: a request larger than the server's buffer is dropped without
// an answer and without closing the connection, so the client waits for a reply forever.
// Its test draws request sizes from a weighted distribution in which large requests are rare.
package session

import (
	"encoding/binary"
	"io"
	"net"
)

// MaxRequest is the largest request the server reads into its buffer.
const MaxRequest = 4096

// Serve answers each request on c with its length, until c is closed.
func Serve(c net.Conn) {
	buf := make([]byte, MaxRequest)
	for {
		var hdr [4]byte
		if _, err := io.ReadFull(c, hdr[:]); err != nil {
			return
		}
		n := binary.BigEndian.Uint32(hdr[:])
		if n > MaxRequest {
			// The bug: the request is skipped without a reply (nor an error, nor a close).
			if _, err := io.CopyN(io.Discard, c, int64(n)); err != nil {
				return
			}
			continue
		}
		if _, err := io.ReadFull(c, buf[:n]); err != nil {
			return
		}
		binary.BigEndian.PutUint32(hdr[:], n)
		if _, err := c.Write(hdr[:]); err != nil {
			return
		}
	}
}

// Call sends a request of size bytes and returns the size the server answers.
func Call(c net.Conn, size int) (int, error) {
	msg := make([]byte, 4+size)
	binary.BigEndian.PutUint32(msg, uint32(size))
	if _, err := c.Write(msg); err != nil {
		return 0, err
	}
	var hdr [4]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return 0, err
	}
	return int(binary.BigEndian.Uint32(hdr[:])), nil
}
