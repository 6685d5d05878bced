package dap

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/interleave-dev/interleave/engine/control"
)

// controlConn is the adapter's side of the control connection to the test process (see
// control.Command): commands go out one at a time; replies come back in order, with
// progress replies of an exploration passed to a callback on the way.
type controlConn struct {
	ln      net.Listener
	address string // what the test process dials (control.Serve)
	cleanup func() // removes what listening made (the socket's directory), once
	conn    net.Conn

	wmu sync.Mutex
	enc *json.Encoder

	replies chan *control.Reply
	dead    chan struct{} // closed when the connection ends
	err     error         // why, once dead is closed

	pmu      sync.Mutex
	progress func(*control.Progress)
}

// newControlConn returns the control connection that listens on ln.
func newControlConn(ln net.Listener, address string, cleanup func()) *controlConn {
	return &controlConn{ln: ln, address: address, cleanup: sync.OnceFunc(cleanup), replies: make(chan *control.Reply, 64), dead: make(chan struct{})}
}

// addr is the control address the test process is given (INTERLEAVE_DEBUG).
func (c *controlConn) addr() string { return c.address }

// stopListening closes the listener and removes what it made.
func (c *controlConn) stopListening() {
	c.ln.Close()
	c.cleanup()
}

// accept waits for the test process to connect and say hello. exited is closed if the process
// ends first.
func (c *controlConn) accept(ctx context.Context, exited <-chan struct{}) (*control.Reply, error) {
	type result struct {
		conn net.Conn
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		conn, err := c.ln.Accept()
		ch <- result{conn, err}
	}()
	var r result
	select {
	case r = <-ch:
	case <-exited:
		c.stopListening()
		return nil, errors.New("the test process ended before it connected")
	case <-ctx.Done():
		c.stopListening()
		return nil, ctx.Err()
	case <-time.After(60 * time.Second):
		c.stopListening()
		return nil, errors.New("the test process did not connect within 60s")
	}
	c.stopListening()
	if r.err != nil {
		return nil, fmt.Errorf("control connection: %w", r.err)
	}
	c.conn = r.conn
	c.enc = json.NewEncoder(r.conn)
	go c.read()
	select {
	case h := <-c.replies:
		if h.Kind != "hello" {
			return nil, fmt.Errorf("control connection: want hello, got %q", h.Kind)
		}
		return h, nil
	case <-c.dead:
		return nil, fmt.Errorf("control connection: %w", c.err)
	}
}

func (c *controlConn) read() {
	dec := json.NewDecoder(bufio.NewReaderSize(c.conn, 1<<16))
	for {
		r := new(control.Reply)
		if err := dec.Decode(r); err != nil {
			c.err = err
			close(c.dead)
			return
		}
		if r.Kind == "progress" {
			c.pmu.Lock()
			f := c.progress
			c.pmu.Unlock()
			if f != nil && r.Progress != nil {
				f(r.Progress)
			}
			continue
		}
		c.replies <- r
	}
}

// errProcessEnded is returned when the test process went away.
var errProcessEnded = errors.New("the test process ended")

// send sends a command without waiting.
func (c *controlConn) send(cmd control.Command) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.conn == nil {
		return errProcessEnded
	}
	if err := c.enc.Encode(cmd); err != nil {
		return fmt.Errorf("%w: %v", errProcessEnded, err)
	}
	return nil
}

// call sends a command and waits for its reply. An "error" reply is returned as an error.
func (c *controlConn) call(cmd control.Command) (*control.Reply, error) {
	if err := c.send(cmd); err != nil {
		return nil, err
	}
	return c.await()
}

// await waits for the next reply.
func (c *controlConn) await() (*control.Reply, error) {
	select {
	case r := <-c.replies:
		if r.Kind == "error" {
			return nil, &commandError{r.Error}
		}
		return r, nil
	case <-c.dead:
		// Replies read before the end are still delivered.
		select {
		case r := <-c.replies:
			if r.Kind == "error" {
				return nil, &commandError{r.Error}
			}
			return r, nil
		default:
		}
		return nil, errProcessEnded
	}
}

// commandError is a command the test process refused; the session goes on.
type commandError struct{ msg string }

func (e *commandError) Error() string { return e.msg }

func (c *controlConn) close() {
	c.stopListening()
	if c.conn != nil {
		c.conn.Close()
	}
}
