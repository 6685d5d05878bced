// Package daptest is a Debug Adapter Protocol client for tests: it drives a debug adapter
// the way VS Code does — requests with sequence numbers, responses matched to them, events
// queued in arrival order — so that a test can run a whole session and wait on the events
// that mark its progress instead of sleeping.
package daptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/google/go-dap"

	"github.com/interleave-dev/interleave/dap/dapext"
)

// codec decodes the standard protocol and the adapter's extensions.
var codec = dapext.NewCodec()

// Client is one client connection.
type Client struct {
	w   io.Writer
	seq int

	mu      sync.Mutex
	cond    *sync.Cond
	pending []dap.Message // received, not yet taken
	err     error         // the end of the input

	// Timeout bounds every wait (default one minute).
	Timeout time.Duration
}

// New returns a client that writes requests to w and reads messages from r.
func New(r io.Reader, w io.Writer) *Client {
	c := &Client{w: w, Timeout: time.Minute}
	c.cond = sync.NewCond(&c.mu)
	go c.read(bufio.NewReader(r))
	return c
}

func (c *Client) read(r *bufio.Reader) {
	for {
		var m dap.Message
		content, err := dap.ReadBaseMessage(r)
		if err == nil {
			m, err = codec.DecodeMessage(content)
		}
		c.mu.Lock()
		if err != nil {
			c.err = err
			c.cond.Broadcast()
			c.mu.Unlock()
			return
		}
		c.pending = append(c.pending, m)
		c.cond.Broadcast()
		c.mu.Unlock()
	}
}

// Send sends a request with arguments (any JSON-encodable value, or nil) and returns its
// sequence number.
func (c *Client) Send(command string, args any) int {
	c.mu.Lock()
	c.seq++
	seq := c.seq
	c.mu.Unlock()
	req := map[string]any{"seq": seq, "type": "request", "command": command}
	if args != nil {
		req["arguments"] = args
	}
	b, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	c.SendRaw(b)
	return seq
}

// SendRaw sends content as one message, whatever it is.
func (c *Client) SendRaw(content []byte) {
	if err := dap.WriteBaseMessage(c.w, content); err != nil {
		c.mu.Lock()
		if c.err == nil {
			c.err = err
		}
		c.cond.Broadcast()
		c.mu.Unlock()
	}
}

// WriteRaw writes b as it is, without a header: for testing how an adapter survives garbage.
func (c *Client) WriteRaw(b []byte) error {
	_, err := c.w.Write(b)
	return err
}

// take waits for the first message that match accepts and removes it from the queue.
func (c *Client) take(what string, match func(dap.Message) bool) (dap.Message, error) {
	deadline := time.Now().Add(c.Timeout)
	timer := time.AfterFunc(c.Timeout, func() {
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		for i, m := range c.pending {
			if match(m) {
				c.pending = append(c.pending[:i], c.pending[i+1:]...)
				return m, nil
			}
		}
		if c.err != nil {
			return nil, fmt.Errorf("waiting for %s: the adapter's output ended: %v (unread: %s)", what, c.err, describe(c.pending))
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("waiting for %s: timed out after %v (unread: %s)", what, c.Timeout, describe(c.pending))
		}
		c.cond.Wait()
	}
}

func describe(ms []dap.Message) string {
	var s []string
	for _, m := range ms {
		switch x := m.(type) {
		case dap.EventMessage:
			s = append(s, "event "+x.GetEvent().Event)
		case dap.ResponseMessage:
			s = append(s, "response "+x.GetResponse().Command)
		default:
			s = append(s, fmt.Sprintf("%T", m))
		}
	}
	return fmt.Sprint(s)
}

// Response waits for the response to request seq.
func (c *Client) Response(seq int) (dap.ResponseMessage, error) {
	m, err := c.take(fmt.Sprintf("the response to request %d", seq), func(m dap.Message) bool {
		r, ok := m.(dap.ResponseMessage)
		return ok && r.GetResponse().RequestSeq == seq
	})
	if err != nil {
		return nil, err
	}
	return m.(dap.ResponseMessage), nil
}

// Call sends a request and waits for its response; a failed response is an error.
func (c *Client) Call(command string, args any) (dap.ResponseMessage, error) {
	r, err := c.Response(c.Send(command, args))
	if err != nil {
		return nil, err
	}
	if !r.GetResponse().Success {
		return r, &ErrorResponse{Command: command, Message: r.GetResponse().Message}
	}
	return r, nil
}

// ErrorResponse is a failed response.
type ErrorResponse struct{ Command, Message string }

func (e *ErrorResponse) Error() string { return e.Command + ": " + e.Message }

// Event waits for the next event named name, skipping none: events of other names stay
// queued.
func (c *Client) Event(name string) (dap.EventMessage, error) {
	m, err := c.take("event "+name, func(m dap.Message) bool {
		e, ok := m.(dap.EventMessage)
		return ok && e.GetEvent().Event == name
	})
	if err != nil {
		return nil, err
	}
	return m.(dap.EventMessage), nil
}

// Events returns and removes the queued events named name, without waiting.
func (c *Client) Events(name string) []dap.EventMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []dap.EventMessage
	keep := c.pending[:0]
	for _, m := range c.pending {
		if e, ok := m.(dap.EventMessage); ok && e.GetEvent().Event == name {
			out = append(out, e)
			continue
		}
		keep = append(keep, m)
	}
	c.pending = keep
	return out
}

// Stopped waits for the next stopped event.
func (c *Client) Stopped() (*dap.StoppedEvent, error) {
	e, err := c.Event("stopped")
	if err != nil {
		return nil, err
	}
	return e.(*dap.StoppedEvent), nil
}

// Launch sends a launch request and waits until the adapter is ready for the configuration
// (the initialized event). The adapter answers a launch before it builds the test: a launch
// whose build or start fails ends the session instead, with a terminated event, and Launch
// returns the notifications (output events of category "important") that said why.
func (c *Client) Launch(args any) error {
	if _, err := c.Call("launch", args); err != nil {
		return err
	}
	m, err := c.take("the initialized or terminated event", func(m dap.Message) bool {
		e, ok := m.(dap.EventMessage)
		return ok && (e.GetEvent().Event == "initialized" || e.GetEvent().Event == "terminated")
	})
	if err != nil {
		return err
	}
	if m.(dap.EventMessage).GetEvent().Event == "initialized" {
		return nil
	}
	why := ""
	for _, e := range c.Events("output") {
		if o := e.(*dap.OutputEvent); o.Body.Category == "important" {
			why += o.Body.Output
		}
	}
	return &ErrorResponse{Command: "launch", Message: strings.TrimSpace(why)}
}

// Start runs the start of a session as VS Code does: initialize, launch with args, then on
// the initialized event the breakpoints (file → lines) and configurationDone.
func (c *Client) Start(launch any, breakpoints map[string][]int) error {
	if _, err := c.Call("initialize", map[string]any{"clientID": "vscode", "adapterID": "interleave", "linesStartAt1": true, "columnsStartAt1": true, "pathFormat": "path", "supportsProgressReporting": true}); err != nil {
		return err
	}
	if err := c.Launch(launch); err != nil {
		return err
	}
	for file, lines := range breakpoints {
		if _, err := c.Call("setBreakpoints", map[string]any{"source": map[string]any{"path": file}, "lines": lines}); err != nil {
			return err
		}
	}
	if _, err := c.Call("setExceptionBreakpoints", map[string]any{"filters": []string{"panic", "deadlock", "leak", "race", "fail", "livelock"}}); err != nil {
		return err
	}
	_, err := c.Call("configurationDone", nil)
	return err
}
