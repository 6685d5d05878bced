// Package wire frames messages over a net.Conn: a 4-byte length, then the payload. It is
// the bundled example of a bug in code the engine does not control: the frames travel
// through a real net.Pipe, whose reads and writes are not scheduling points.
//
// The bug: Send writes the header and the payload with two Write calls and does not hold a
// lock across them, so two goroutines sending at once can interleave their frames on the
// wire, and the receiver decodes one message's header followed by another's payload.
package wire

import (
	"encoding/binary"
	"io"
	"net"
	"sync/atomic"
)

// Conn sends and receives framed messages.
type Conn struct {
	c    net.Conn
	sent atomic.Int64
}

// New wraps c.
func New(c net.Conn) *Conn { return &Conn{c: c} }

// Send writes one frame.
func (c *Conn) Send(msg []byte) error {
	var hdr [4]byte
	binary.BigEndian.PutUint32(hdr[:], uint32(len(msg)))
	if _, err := c.c.Write(hdr[:]); err != nil {
		return err
	}
	c.sent.Add(1) // statistics, between the two writes
	_, err := c.c.Write(msg)
	return err
}

// Recv reads one frame.
func (c *Conn) Recv() ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(c.c, hdr[:]); err != nil {
		return nil, err
	}
	msg := make([]byte, binary.BigEndian.Uint32(hdr[:]))
	_, err := io.ReadFull(c.c, msg)
	return msg, err
}

// Close closes the connection.
func (c *Conn) Close() error { return c.c.Close() }
