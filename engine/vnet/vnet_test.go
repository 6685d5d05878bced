package vnet_test

import (
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/vnet"
)

// strategy is a strategy made of its pick.
type strategy struct {
	name  string
	limit int
	runs  int
	pick  func(d *engine.Decision) engine.GID
}

func (s *strategy) Name() string                       { return s.name }
func (s *strategy) Params() map[string]string          { return nil }
func (s *strategy) Begin() bool                        { s.runs++; return s.limit == 0 || s.runs <= s.limit }
func (s *strategy) Pick(d *engine.Decision) engine.GID { return s.pick(d) }
func (s *strategy) Choose(c *engine.Choice) int        { return 0 }
func (s *strategy) End(*engine.Result)                 {}

// random picks among the enabled goroutines at random from seed.
func random(seed uint64) *strategy {
	r := rand.New(rand.NewPCG(seed, 1))
	return &strategy{name: "random", pick: func(d *engine.Decision) engine.GID { return d.EnabledAt(r.IntN(d.NumEnabled())) }}
}

// explore explores body for n schedules; a limitation (an abandoned execution among them)
// fails the test.
func explore(t *testing.T, body func(*engine.T), s engine.Strategy, n int) *engine.Report {
	t.Helper()
	rep := engine.Explore(body, engine.Config{Strategy: s, Schedules: n})
	if rep.Err != nil {
		t.Fatalf("strategy error: %v", rep.Err)
	}
	if len(rep.Limitations) > 0 {
		t.Fatalf("limitations: %+v", rep.Limitations)
	}
	return rep
}

func noBug(t *testing.T, rep *engine.Report) {
	t.Helper()
	if rep.First != nil {
		t.Fatalf("schedule %d of %d: %v\nlogs: %q", rep.FirstAt, rep.Schedules, rep.First.Bug, rep.First.Bug.Logs)
	}
}

// TestNetPipeProtocolDeadlock: both ends of a net.Pipe read first; under the engine that is a
// deadlock, reported with both goroutines at their reads.
func TestNetPipeProtocolDeadlock(t *testing.T) {
	rep := explore(t, func(et *engine.T) {
		a, b := vnet.Pipe("p.go:1")
		done := make(chan struct{})
		engine.Go(func() {
			buf := make([]byte, 4)
			b.Read(buf) // the server waits for a request
			b.Write([]byte("pong"))
			engine.Close(done, "p.go:2")
		}, "p.go:3")
		buf := make([]byte, 4)
		a.Read(buf) // the client waits for a greeting: neither writes
		a.Write([]byte("ping"))
		engine.Recv(done, "p.go:4")
	}, random(1), 20)
	if rep.First == nil || rep.First.Bug.Kind != engine.Deadlock {
		t.Fatalf("want a deadlock, got %+v", rep.First)
	}
	if msg := rep.First.Bug.Message; strings.Count(msg, "net.read") != 2 {
		t.Fatalf("deadlock message %q, want both goroutines at net.read", msg)
	}
}

// tcpEcho serves one echo of every line on each accepted connection until the listener closes.
func tcpEcho(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		engine.Go(func() {
			defer c.Close()
			io.Copy(c, c)
		}, "s.go:1")
	}
}

// TestLoopbackClientServer: a server on 127.0.0.1:0 and clients that dial it, over the
// virtual network: explored with no limitation (no abandonment) and no false report; a client
// that races the server's shutdown finds the refused dial.
func TestLoopbackClientServer(t *testing.T) {
	clean := func(et *engine.T) {
		l, err := vnet.Listen("tcp", "127.0.0.1:0", "c.go:1")
		if err != nil {
			et.Fatalf("listen: %v", err)
		}
		served := make(chan struct{})
		engine.Go(func() { tcpEcho(l); engine.Close(served, "c.go:2") }, "c.go:3")
		addr := l.Addr().String()
		if !strings.HasPrefix(addr, "127.0.0.1:") {
			et.Errorf("Addr() = %q", addr)
		}
		var clients [2]chan struct{}
		for i := range clients {
			clients[i] = make(chan struct{})
			engine.Go(func() {
				defer engine.Close(clients[i], "c.go:4")
				c, err := vnet.DialTimeout("tcp", addr, time.Second, "c.go:5")
				if err != nil {
					et.Errorf("dial: %v", err)
					return
				}
				msg := []byte("hello from a client")
				c.Write(msg)
				c.(interface{ CloseWrite() error }).CloseWrite()
				got, err := io.ReadAll(c)
				if err != nil || string(got) != string(msg) {
					et.Errorf("echo = %q, %v", got, err)
				}
				c.Close()
			}, "c.go:6")
		}
		for _, c := range clients {
			engine.Recv(c, "c.go:7")
		}
		l.Close()
		engine.Recv(served, "c.go:8")
	}
	noBug(t, explore(t, clean, random(5), 300))

	shutdown := func(et *engine.T) {
		l, err := vnet.Listen("tcp", "localhost:0", "r.go:1")
		if err != nil {
			et.Fatalf("listen: %v", err)
		}
		served := make(chan struct{})
		engine.Go(func() { tcpEcho(l); engine.Close(served, "r.go:2") }, "r.go:3")
		addr := l.Addr().String()
		client := make(chan struct{})
		engine.Go(func() { // a request racing the shutdown below
			defer engine.Close(client, "r.go:4")
			c, err := vnet.Dial("tcp", addr, "r.go:5")
			if err != nil {
				et.Errorf("request: %v", err)
				return
			}
			c.Close()
		}, "r.go:6")
		l.Close()
		engine.Recv(served, "r.go:7")
		engine.Recv(client, "r.go:8")
	}
	rep := explore(t, shutdown, random(6), 300)
	if rep.First == nil || !strings.Contains(rep.First.Bug.Message, "connection refused") {
		t.Fatalf("want the refused request found, got %+v", rep.First)
	}
}

// TestVirtualDeadline: a read deadline an hour ahead fires on the virtual clock (no real
// waiting) with os.ErrDeadlineExceeded, a timeout, on both kinds of connection.
func TestVirtualDeadline(t *testing.T) {
	for _, kind := range []string{"pipe", "tcp"} {
		t.Run(kind, func(t *testing.T) {
			start := time.Now()
			rep := explore(t, func(et *engine.T) {
				var a net.Conn
				if kind == "pipe" {
					a, _ = vnet.Pipe("d.go:1")
				} else {
					l, _ := vnet.Listen("tcp", "[::1]:0", "d.go:2")
					a, _ = vnet.Dial("tcp", l.Addr().String(), "d.go:3")
					s, _ := l.Accept()
					defer s.Close()
					l.Close()
				}
				t0 := engine.Now()
				a.SetReadDeadline(t0.Add(time.Hour))
				_, err := a.Read(make([]byte, 1))
				var ne net.Error
				if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
					et.Errorf("read past the deadline: %v", err)
				}
				if d := engine.Since(t0); d < time.Hour {
					et.Errorf("deadline fired after %v of virtual time", d)
				}
				a.SetReadDeadline(time.Time{})
				a.Close()
			}, random(7), 20)
			noBug(t, rep)
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("20 executions took %v: the deadline waited in real time", d)
			}
		})
	}
}

// TestVirtualPipeSemantics: Go's results for partial reads, EOF, closed pipes, resets and
// half-closes, checked in one fixed schedule each.
func TestVirtualPipeSemantics(t *testing.T) {
	tests := []struct {
		name string
		body func(et *engine.T)
	}{
		{"net.Pipe partial reads and EOF", func(et *engine.T) {
			a, b := vnet.Pipe("s.go:1")
			engine.Go(func() { a.Write([]byte("0123456789")); a.Close() }, "s.go:2")
			buf := make([]byte, 4)
			var got []string
			for {
				n, err := b.Read(buf)
				if err != nil {
					if err != io.EOF {
						et.Errorf("read: %v", err)
					}
					break
				}
				got = append(got, string(buf[:n]))
			}
			if strings.Join(got, "|") != "0123|4567|89" {
				et.Errorf("reads %q", got)
			}
			if _, err := b.Write([]byte("x")); err != io.ErrClosedPipe {
				et.Errorf("write to a closed peer: %v", err)
			}
			b.Close()
			if _, err := b.Read(buf); err != io.ErrClosedPipe {
				et.Errorf("read of a closed end: %v", err)
			}
		}},
		{"tcp reset and half-close", func(et *engine.T) {
			l, _ := vnet.Listen("tcp", "127.0.0.1:0", "s.go:6")
			c, _ := vnet.Dial("tcp", l.Addr().String(), "s.go:7")
			s, _ := l.Accept()
			if s.LocalAddr().String() != l.Addr().String() || s.RemoteAddr().String() != c.LocalAddr().String() {
				et.Errorf("addresses: server %v-%v, client %v-%v", s.LocalAddr(), s.RemoteAddr(), c.LocalAddr(), c.RemoteAddr())
			}
			c.Write([]byte("req"))
			c.(interface{ CloseWrite() error }).CloseWrite()
			if _, err := c.Write([]byte("x")); !errors.Is(err, syscall.EPIPE) {
				et.Errorf("write after CloseWrite: %v", err)
			}
			req, err := io.ReadAll(s)
			if string(req) != "req" || err != nil {
				et.Errorf("server read %q, %v", req, err)
			}
			s.Write([]byte("resp"))
			s.Close()
			resp, err := io.ReadAll(c)
			if string(resp) != "resp" || err != nil {
				et.Errorf("client read %q, %v", resp, err)
			}
			c2, _ := vnet.Dial("tcp", l.Addr().String(), "s.go:9")
			s2, _ := l.Accept()
			s2.Close()
			if _, err := c2.Write([]byte("x")); !errors.Is(err, syscall.ECONNRESET) {
				et.Errorf("write to a closed peer: %v", err)
			}
			c2.Close()
			c.Close()
			if _, err := c.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
				et.Errorf("read of a closed connection: %v", err)
			}
			if err := c.Close(); !errors.Is(err, net.ErrClosed) {
				et.Errorf("second close: %v", err)
			}
			l.Close()
			if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
				et.Errorf("accept after close: %v", err)
			}
			if _, err := vnet.Dial("tcp", l.Addr().String(), "s.go:8"); !errors.Is(err, syscall.ECONNREFUSED) {
				et.Errorf("dial after close: %v", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			noBug(t, explore(t, tt.body, random(9), 50))
		})
	}
}

// TestPipeOutsideAnExecution: outside an execution Pipe is net.Pipe, and Listen and Dial
// are real.
func TestPipeOutsideAnExecution(t *testing.T) {
	a, b := vnet.Pipe("o.go:2")
	go func() { a.Write([]byte("x")); a.Close() }()
	if got, err := io.ReadAll(b); string(got) != "x" || err != nil {
		t.Fatalf("ReadAll = %q, %v", got, err)
	}
	if _, ok := a.(interface{ CloseWrite() error }); ok {
		t.Fatalf("a real net.Pipe has no CloseWrite: %T", a)
	}
}

// TestUnixSockets: a Unix socket listener is the virtual network's, at its path: an echo over
// it is explored with no limitation and no false report; a second listen of an open path is
// EADDRINUSE; a dial of the path after the listener closed is ENOENT (package net removes the
// socket's file); and a client and a server that both read first deadlock.
func TestUnixSockets(t *testing.T) {
	const path = "/nonexistent/interleave/echo.sock" // nothing is made in the file system
	clean := func(et *engine.T) {
		l, err := vnet.Listen("unix", path, "u.go:1")
		if err != nil {
			et.Fatalf("listen: %v", err)
		}
		if a := l.Addr(); a.Network() != "unix" || a.String() != path {
			et.Errorf("Addr() = %s %q", a.Network(), a)
		}
		if _, err := vnet.Listen("unix", path, "u.go:2"); !errors.Is(err, syscall.EADDRINUSE) {
			et.Errorf("second listen: %v, want EADDRINUSE", err)
		}
		served := make(chan struct{})
		engine.Go(func() { tcpEcho(l); engine.Close(served, "u.go:3") }, "u.go:4")
		c, err := vnet.Dial("unix", path, "u.go:5")
		if err != nil {
			et.Fatalf("dial: %v", err)
		}
		c.Write([]byte("ping"))
		c.(interface{ CloseWrite() error }).CloseWrite()
		if got, err := io.ReadAll(c); err != nil || string(got) != "ping" {
			et.Errorf("echo = %q, %v", got, err)
		}
		c.Close()
		l.Close()
		engine.Recv(served, "u.go:6")
		if _, err := vnet.Dial("unix", path, "u.go:7"); !errors.Is(err, syscall.ENOENT) {
			et.Errorf("dial after close: %v, want ENOENT", err)
		}
	}
	noBug(t, explore(t, clean, random(7), 200))

	deadlock := func(et *engine.T) {
		l, err := vnet.Listen("unix", path, "d.go:1")
		if err != nil {
			et.Fatalf("listen: %v", err)
		}
		engine.Go(func() {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Read(make([]byte, 4)) // the server waits for the request
			c.Write([]byte("pong"))
		}, "d.go:2")
		c, err := vnet.Dial("unix", path, "d.go:3")
		if err != nil {
			et.Fatalf("dial: %v", err)
		}
		c.Read(make([]byte, 4)) // the client waits for a banner
		c.Write([]byte("ping"))
	}
	rep := explore(t, deadlock, random(8), 20)
	if rep.First == nil || rep.First.Bug.Kind != engine.Deadlock || strings.Count(rep.First.Bug.Message, "net.read") != 2 {
		t.Fatalf("want a deadlock with both ends at net.read, got %+v", rep.First)
	}
}

// TestServerNeverStopped: a server the test never stopped, idle in Accept or on a keep-alive
// connection at the read it completed before, is a notice (go test passes such a test), not
// a leak; a client left waiting for a reply that never comes is a leak.
func TestServerNeverStopped(t *testing.T) {
	idle := func(et *engine.T) {
		l, err := vnet.Listen("tcp", "127.0.0.1:0", "i.go:1")
		if err != nil {
			et.Fatalf("listen: %v", err)
		}
		engine.Go(func() { // a server that answers each line, on every connection
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				engine.Go(func() {
					buf := make([]byte, 4)
					for {
						if _, err := io.ReadFull(c, buf); err != nil {
							return
						}
						c.Write(buf)
					}
				}, "i.go:2")
			}
		}, "i.go:3")
		c, err := vnet.Dial("tcp", l.Addr().String(), "i.go:4")
		if err != nil {
			et.Fatalf("dial: %v", err)
		}
		c.Write([]byte("ping"))
		io.ReadFull(c, make([]byte, 4)) // answered; the connection stays open, idle
	}
	rep := explore(t, idle, random(9), 50)
	noBug(t, rep)
	if rep.Background == nil {
		t.Fatalf("no notice of the server left accepting and reading")
	}

	abandoned := func(et *engine.T) {
		l, err := vnet.Listen("tcp", "127.0.0.1:0", "a.go:1")
		if err != nil {
			et.Fatalf("listen: %v", err)
		}
		c, err := vnet.Dial("tcp", l.Addr().String(), "a.go:2")
		if err != nil {
			et.Fatalf("dial: %v", err)
		}
		engine.Go(func() { c.Read(make([]byte, 4)) }, "a.go:3") // a reply nobody sends
	}
	rep = explore(t, abandoned, random(10), 20)
	if rep.First == nil || rep.First.Bug.Kind != engine.Leak || !strings.Contains(rep.First.Bug.Message, "net.read") {
		t.Fatalf("want a leak at the client's read, got %+v", rep.First)
	}
}
