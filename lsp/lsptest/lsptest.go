// Package lsptest drives Interleave's language server from tests as an editor does: it
// starts interleave lsp as a subprocess, speaks the Language Server Protocol on its stdin and
// stdout with VS Code's initialize parameters, answers the server's requests as VS Code does
// (capability registration, progress creation), and keeps the server's notifications —
// diagnostics, log messages, progress — for the test to wait on, with a deadline.
package lsptest

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Timeout bounds every wait: a guard against a server that never answers, not a delay.
var Timeout = 2 * time.Minute

//go:embed testdata/vscode-initialize.json
var vscodeInitialize []byte

// VSCodeInitialize returns VS Code's initialize parameters (testdata/vscode-initialize.json,
// recorded from the code-server workbench of extension/e2e, which checks it on every run)
// for a workspace of folders: processId is this process, rootUri the first folder. edit, if
// not nil, changes the parameters (as decoded JSON) before they are sent.
func VSCodeInitialize(folders []string, edit func(params map[string]any)) json.RawMessage {
	var p map[string]any
	if err := json.Unmarshal(vscodeInitialize, &p); err != nil {
		panic(fmt.Sprintf("lsptest: testdata/vscode-initialize.json: %v", err))
	}
	p["processId"] = os.Getpid()
	var wf []any
	for _, f := range folders {
		wf = append(wf, map[string]any{"uri": string(uri.File(f)), "name": filepath.Base(f)})
	}
	p["workspaceFolders"] = wf
	if len(folders) > 0 {
		p["rootPath"] = folders[0]
		p["rootUri"] = string(uri.File(folders[0]))
	}
	if edit != nil {
		edit(p)
	}
	b, _ := json.Marshal(p)
	return b
}

// Build builds the interleave command of the module that contains this package into dir and
// returns the executable's path. With LSPTEST_RACE set in the environment, it is built with
// the race detector.
func Build(dir string) (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("lsptest: cannot locate the module")
	}
	root := filepath.Join(filepath.Dir(file), "..", "..")
	exe := filepath.Join(dir, "interleave")
	args := []string{"build", "-o", exe}
	if os.Getenv("LSPTEST_RACE") != "" {
		args = append(args, "-race") // the server under the race detector
	}
	cmd := exec.Command("go", append(args, "./cmd/interleave")...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("lsptest: go build ./cmd/interleave: %v\n%s", err, out)
	}
	return exe, nil
}

// Client is an editor's end of a session with interleave lsp.
type Client struct {
	t    testing.TB
	cmd  *exec.Cmd
	in   io.WriteCloser
	conn jsonrpc2.Conn
	ctx  context.Context
	exit chan error
	// Stderr is what the server wrote to its stderr.
	stderr *lockedBuffer

	mu            sync.Mutex
	changed       chan struct{} // closed and replaced on every notification
	diagnostics   map[protocol.DocumentURI]protocol.PublishDiagnosticsParams
	published     int
	logs          []protocol.LogMessageParams
	progress      []protocol.ProgressParams
	registrations []protocol.Registration
	requests      []string // methods of the server's requests
}

// Start starts interleave lsp (exe) in dir with args and connects to it; the server is
// stopped (killed if it has not exited) when the test ends.
func Start(t testing.TB, exe, dir string, args ...string) *Client {
	t.Helper()
	cmd := exec.Command(exe, append([]string{"lsp"}, args...)...)
	cmd.Dir = dir
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := new(lockedBuffer)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s lsp: %v", exe, err)
	}
	exit := make(chan error, 1)
	go func() { exit <- cmd.Wait() }()
	c := connect(t, out, in, exit)
	c.cmd, c.stderr = cmd, stderr
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", c.stderr.String())
		}
	})
	return c
}

// Connect connects to a server running in this process, which reads what the client writes
// to in and writes to out; exit receives the server's end (nil: status 0).
func Connect(t testing.TB, out io.Reader, in io.WriteCloser, exit chan error) *Client {
	c := connect(t, out, in, exit)
	c.stderr = new(lockedBuffer)
	return c
}

func connect(t testing.TB, out io.Reader, in io.WriteCloser, exit chan error) *Client {
	c := &Client{t: t, in: in, exit: exit,
		changed: make(chan struct{}), diagnostics: make(map[protocol.DocumentURI]protocol.PublishDiagnosticsParams)}
	var cancel context.CancelFunc
	c.ctx, cancel = context.WithCancel(context.Background())
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(struct {
		io.Reader
		io.WriteCloser
	}{out, in}))
	c.conn.Go(c.ctx, c.handle)
	t.Cleanup(func() {
		cancel()
		c.conn.Close()
	})
	return c
}

// handle answers the server's requests as VS Code does and records its notifications.
func (c *Client) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	c.mu.Lock()
	var result any
	var err error
	switch req.Method() {
	case protocol.MethodTextDocumentPublishDiagnostics:
		var p protocol.PublishDiagnosticsParams
		if json.Unmarshal(req.Params(), &p) == nil {
			c.diagnostics[p.URI] = p
			c.published++
		}
	case protocol.MethodWindowLogMessage:
		var p protocol.LogMessageParams
		if json.Unmarshal(req.Params(), &p) == nil {
			c.logs = append(c.logs, p)
		}
	case protocol.MethodProgress:
		var p protocol.ProgressParams
		if json.Unmarshal(req.Params(), &p) == nil {
			c.progress = append(c.progress, p)
		}
	case protocol.MethodClientRegisterCapability:
		c.requests = append(c.requests, req.Method())
		var p protocol.RegistrationParams
		if json.Unmarshal(req.Params(), &p) == nil {
			c.registrations = append(c.registrations, p.Registrations...)
		}
	case protocol.MethodWorkDoneProgressCreate, protocol.MethodCodeLensRefresh, "workspace/diagnostic/refresh":
		c.requests = append(c.requests, req.Method())
	case protocol.MethodWorkspaceConfiguration:
		c.requests = append(c.requests, req.Method())
		result = []any{}
	default:
		if _, ok := req.(*jsonrpc2.Call); ok {
			err = jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "the test client does not implement %s", req.Method())
		}
	}
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
	// The reply is written from its own goroutine, as an editor's event loop does: written
	// from the read loop, it could wait for the server to read while the server waits for
	// this loop to read its notifications. A failure to reply (the server is gone) is not
	// returned: jsonrpc2 v0.10.0 would record it beside the stream's error and panic on
	// their different types.
	if _, ok := req.(*jsonrpc2.Call); ok {
		go reply(ctx, result, err)
	}
	return nil
}

// Call sends a request and decodes its result into result (nil: discard).
func (c *Client) Call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(c.ctx, Timeout)
	defer cancel()
	_, err := c.conn.Call(ctx, method, params, result)
	return err
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(c.ctx, method, params); err != nil {
		c.t.Fatalf("notify %s: %v", method, err)
	}
}

// WriteRaw writes one framed message body past the connection (for messages a well-behaved
// client never sends). It must not race with the client's other messages.
func (c *Client) WriteRaw(body []byte) error {
	_, err := fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}

// Initialize sends initialize with params (VSCodeInitialize's) and then initialized.
func (c *Client) Initialize(params json.RawMessage) *protocol.InitializeResult {
	c.t.Helper()
	var res protocol.InitializeResult
	if err := c.Call(protocol.MethodInitialize, params, &res); err != nil {
		c.t.Fatalf("initialize: %v", err)
	}
	c.Notify(protocol.MethodInitialized, &protocol.InitializedParams{})
	return &res
}

// Shutdown sends shutdown and exit, and waits for the server to exit with status 0.
func (c *Client) Shutdown() {
	c.t.Helper()
	if err := c.Call(protocol.MethodShutdown, nil, nil); err != nil {
		c.t.Fatalf("shutdown: %v", err)
	}
	c.conn.Notify(c.ctx, protocol.MethodExit, nil)
	if err := c.Wait(); err != nil {
		c.t.Fatalf("the server exited with %v after shutdown and exit, want status 0", err)
	}
}

// Wait waits for the server's process to exit and returns its error (nil: status 0).
func (c *Client) Wait() error {
	c.t.Helper()
	select {
	case err := <-c.exit:
		c.exit <- err
		return err
	case <-time.After(Timeout):
		c.t.Fatalf("the server did not exit within %v", Timeout)
		return nil
	}
}

// CloseStdin closes the server's stdin, as a client that dies does.
func (c *Client) CloseStdin() { c.in.Close() }

// Await waits until cond (called with the client's records locked) holds, checking after
// every notification or request from the server; it fails the test after Timeout.
func (c *Client) Await(what string, cond func(r *Records) bool) {
	c.t.Helper()
	deadline := time.After(Timeout)
	for {
		c.mu.Lock()
		ok := cond(&Records{c})
		ch := c.changed
		c.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			c.mu.Lock()
			var b strings.Builder
			for u, p := range c.diagnostics {
				fmt.Fprintf(&b, "\n%s: %d diagnostics", u, len(p.Diagnostics))
				for _, d := range p.Diagnostics {
					fmt.Fprintf(&b, "\n\t%d:%d-%d:%d %v %s", d.Range.Start.Line+1, d.Range.Start.Character+1, d.Range.End.Line+1, d.Range.End.Character+1, d.Code, d.Message)
				}
			}
			c.mu.Unlock()
			c.t.Fatalf("timed out after %v waiting for %s; diagnostics:%s", Timeout, what, b.String())
		case err := <-c.exit:
			c.exit <- err
			c.t.Fatalf("the server exited (%v) while waiting for %s", err, what)
		}
	}
}

// Records are what the client received, as Await's condition sees them.
type Records struct{ c *Client }

// Diagnostics returns the last diagnostics published for a file (nil if none were).
func (r *Records) Diagnostics(path string) []protocol.Diagnostic {
	return r.c.diagnostics[uri.File(path)].Diagnostics
}

// Count is the number of publishDiagnostics notifications received.
func (r *Records) Count() int { return r.c.published }

// Published says whether diagnostics were ever published for a file.
func (r *Records) Published(path string) bool {
	_, ok := r.c.diagnostics[uri.File(path)]
	return ok
}

// All returns the last diagnostics of every file, by path.
func (r *Records) All() map[string][]protocol.Diagnostic {
	out := make(map[string][]protocol.Diagnostic)
	for u, p := range r.c.diagnostics {
		if len(p.Diagnostics) > 0 {
			out[u.Filename()] = p.Diagnostics
		}
	}
	return out
}

// Logs returns the window/logMessage notifications.
func (r *Records) Logs() []protocol.LogMessageParams { return r.c.logs }

// Progress returns the $/progress notifications.
func (r *Records) Progress() []protocol.ProgressParams { return r.c.progress }

// Registrations returns the capabilities the server registered.
func (r *Records) Registrations() []protocol.Registration { return r.c.registrations }

// Requests returns the methods of the server's requests, in order.
func (r *Records) Requests() []string { return r.c.requests }

// Snapshot runs f with the records locked.
func (c *Client) Snapshot(f func(r *Records)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(&Records{c})
}

// Stderr returns what the server wrote to stderr so far.
func (c *Client) Stderr() string { return c.stderr.String() }

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
