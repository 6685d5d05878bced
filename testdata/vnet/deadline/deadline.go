// Package deadline reads a reply with a deadline: a server that never answers makes the
// read fail with a timeout after the deadline.
package deadline

import (
	"net"
	"time"
)

// Ask writes q on c and reads a reply, giving up after wait.
func Ask(c net.Conn, q string, wait time.Duration) (string, error) {
	if _, err := c.Write([]byte(q)); err != nil {
		return "", err
	}
	c.SetReadDeadline(time.Now().Add(wait))
	buf := make([]byte, 64)
	n, err := c.Read(buf)
	return string(buf[:n]), err
}
