// Package server is a line server on a loopback TCP listener: each connection sends one
// request line and gets one reply line. Shutdown closes the listener and waits for the
// requests being served. A request whose connection was dialed but not yet accepted when
// Shutdown closes the listener is dropped: the client reads EOF instead of either a refusal
// or a reply (a request racing a shutdown).
package server

import (
	"bufio"
	"net"
	"strings"
	"sync"
)

// Server serves requests on its listener.
type Server struct {
	l  net.Listener
	wg sync.WaitGroup
}

// Start listens on a free loopback port and serves in a goroutine.
func Start() (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{l: l}
	s.wg.Add(1)
	go s.serve()
	return s, nil
}

// Addr is the server's address.
func (s *Server) Addr() string { return s.l.Addr().String() }

func (s *Server) serve() {
	defer s.wg.Done()
	for {
		c, err := s.l.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer c.Close()
			line, err := bufio.NewReader(c).ReadString('\n')
			if err != nil {
				return
			}
			c.Write([]byte(strings.ToUpper(line)))
		}()
	}
}

// Shutdown stops accepting and waits for the requests being served.
func (s *Server) Shutdown() {
	s.l.Close()
	s.wg.Wait()
}

// Request sends one line to the server at addr and returns its reply.
func Request(addr, line string) (string, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		return "", err
	}
	reply, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSuffix(reply, "\n"), err
}
