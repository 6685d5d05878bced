// Package unixecho is a line echo server on a Unix socket. The server reads a line and
// writes it back; Banner clients wait for the server's banner before they send, which this
// server never writes: a protocol deadlock over the socket, which is found as one. Echo
// clients send first and always get their line back.
package unixecho

import (
	"bufio"
	"net"
)

// Serve answers each connection of l: one line read, written back.
func Serve(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			line, err := bufio.NewReader(c).ReadString('\n')
			if err != nil {
				return
			}
			c.Write([]byte(line))
		}()
	}
}

// Echo sends line to the server at path and returns its answer.
func Echo(path, line string) (string, error) {
	c, err := net.Dial("unix", path)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}

// Banner waits for the server's banner line, then sends line and returns its answer.
func Banner(path, line string) (string, error) {
	c, err := net.Dial("unix", path)
	if err != nil {
		return "", err
	}
	defer c.Close()
	r := bufio.NewReader(c)
	if _, err := r.ReadString('\n'); err != nil {
		return "", err
	}
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		return "", err
	}
	return r.ReadString('\n')
}
