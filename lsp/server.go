// Package lsp is Interleave's language server: it puts what the explorations found — data
// races, bugs, constructs left uninstrumented — on the source lines of every module of the
// workspace as diagnostics, with hovers, code lenses and code actions, and updates them as
// new results arrive in the results stores (.interleave/).
//
// The server speaks the Language Server Protocol over go.lsp.dev/jsonrpc2 with
// go.lsp.dev/protocol's types. Each LSP method has one thin handler (lifecycle.go, text.go,
// workspace.go, language.go, command.go) that decodes its parameters and delegates to
// packages that know nothing of JSON-RPC: lsp/store reads the results stores, lsp/diagnose
// makes diagnostics, hovers and code actions, lsp/lens finds tests for code lenses. Package
// lsp/lsptest drives a server from tests as an editor would.
package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/interleave-dev/interleave/lsp/diagnose"
	"github.com/interleave-dev/interleave/lsp/store"
)

// Config configures a server.
type Config struct {
	// Executable is the interleave command that interleave.runTest runs (default: the
	// running executable).
	Executable string
	// PollInterval is how often the results stores are looked at for changes (default
	// 500ms): every document's stamp when the client cannot watch files for the server,
	// the stores' directories when it does.
	PollInterval time.Duration
	// Log, when not nil, receives the server's own diagnostics.
	Log io.Writer
}

// state is where the session is in the protocol's lifecycle.
type state int

const (
	stateNew         state = iota // before initialize
	stateInitialized              // after initialize
	stateShutdown                 // after shutdown
)

// Server is one language server session.
type Server struct {
	cfg  Config
	conn jsonrpc2.Conn
	log  *log.Logger

	ctx    context.Context // the session's; canceled when it ends
	cancel context.CancelFunc
	// exitCode is set by the exit notification: 0 after shutdown, 1 otherwise.
	exitCode chan int

	handlers map[string]handler

	resolver diagnose.Resolver
	pubMu    sync.Mutex // serializes publishing, so that diagnostics are sent in order

	mu      sync.Mutex
	state   state
	caps    protocol.ClientCapabilities
	folders []string
	stores  map[string]*store.Store // by module root
	docs    map[string]*diagnose.Doc
	// closed are documents closed after unsaved-then-saved edits: while the file on disk
	// is their text, their edits still carry the findings recorded before them.
	closed     map[string]*diagnose.Doc
	items      map[string][]*diagnose.Item
	published  map[string][]byte // the last diagnostics sent, by file
	watching   bool              // the client watches the stores for us
	polling    bool
	runs       map[int64]*run // interleave.runTest runs
	running    sync.WaitGroup // the runs' goroutines
	stopping   bool           // the runs are canceled as they start
	parentDead chan struct{}
}

// handler handles one LSP method. A request's result (or error) is its reply; a
// notification's is ignored.
type handler func(s *Server, ctx context.Context, req jsonrpc2.Request) (any, error)

// replyKey is the context key of a call's jsonrpc2.Replier, for a handler that replies later.
type replyKey struct{}

// errAsync is returned by a handler that replies itself, later.
var errAsync = errors.New("reply later")

// NewServer returns a server; Serve runs it.
func NewServer(cfg Config) *Server {
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 500 * time.Millisecond
	}
	logw := cfg.Log
	if logw == nil {
		logw = io.Discard
	}
	s := &Server{
		cfg:       cfg,
		log:       log.New(logw, "interleave lsp: ", log.Ltime|log.Lmicroseconds),
		exitCode:  make(chan int, 1),
		stores:    make(map[string]*store.Store),
		docs:      make(map[string]*diagnose.Doc),
		closed:    make(map[string]*diagnose.Doc),
		items:     make(map[string][]*diagnose.Item),
		published: make(map[string][]byte),
		runs:      make(map[int64]*run),
	}
	s.handlers = map[string]handler{
		protocol.MethodInitialize:                         (*Server).initialize,
		protocol.MethodInitialized:                        (*Server).initialized,
		protocol.MethodShutdown:                           (*Server).shutdown,
		protocol.MethodExit:                               (*Server).exit,
		protocol.MethodTextDocumentDidOpen:                (*Server).didOpen,
		protocol.MethodTextDocumentDidChange:              (*Server).didChange,
		protocol.MethodTextDocumentDidClose:               (*Server).didClose,
		protocol.MethodTextDocumentHover:                  (*Server).hover,
		protocol.MethodTextDocumentCodeLens:               (*Server).codeLens,
		protocol.MethodTextDocumentCodeAction:             (*Server).codeAction,
		protocol.MethodWorkspaceDidChangeWorkspaceFolders: (*Server).didChangeWorkspaceFolders,
		protocol.MethodWorkspaceDidChangeWatchedFiles:     (*Server).didChangeWatchedFiles,
		protocol.MethodWorkspaceExecuteCommand:            (*Server).executeCommand,
		protocol.MethodWorkDoneProgressCancel:             (*Server).workDoneProgressCancel,
	}
	return s
}

// Serve runs the session on r and w (stdin and stdout) until the client exits or the
// stream ends, and returns the exit status: 0 after shutdown and exit, 1 otherwise.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) int {
	s.ctx, s.cancel = context.WithCancel(ctx)
	defer s.cancel()
	s.conn = jsonrpc2.NewConn(&tolerantStream{Stream: jsonrpc2.NewStream(readWriteCloser{r, w}), log: s.log})
	h, canceller := jsonrpc2.CancelHandler(s.handle)
	s.conn.Go(s.ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == protocol.MethodCancelRequest {
			var p struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(req.Params(), &p) == nil {
				var n int32
				var str string
				switch {
				case json.Unmarshal(p.ID, &n) == nil:
					canceller(jsonrpc2.NewNumberID(n))
				case json.Unmarshal(p.ID, &str) == nil:
					canceller(jsonrpc2.NewStringID(str))
				}
			}
			return nil
		}
		return h(ctx, reply, req)
	})
	select {
	case code := <-s.exitCode:
		s.stopRuns()
		s.conn.Close()
		return code
	case <-s.conn.Done():
		// The client went away without exit: stop everything it started.
		s.stopRuns()
		if err := s.conn.Err(); err != nil && !errors.Is(err, io.EOF) {
			s.log.Printf("connection: %v", err)
		}
		return 1
	case <-s.parentGone():
		s.log.Printf("the client's process is gone")
		s.stopRuns()
		s.conn.Close()
		return 1
	}
}

// handle dispatches one message to its method's handler. It never returns an error, which
// would end the connection: a failing notification is logged.
func (s *Server) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) (err error) {
	_, isCall := req.(*jsonrpc2.Call)
	defer func() {
		if r := recover(); r != nil {
			s.log.Printf("%s: panic: %v", req.Method(), r)
			if isCall {
				s.reply(ctx, reply, req.Method(), nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "%s: internal error: %v", req.Method(), r))
			}
			err = nil
		}
	}()
	h, ok := s.handlers[req.Method()]
	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	switch {
	case !ok:
		if isCall {
			return s.reply(ctx, reply, req.Method(), nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", req.Method()))
		}
		return nil // an unknown notification ($/setTrace, ...) is ignored
	case st == stateNew && req.Method() != protocol.MethodInitialize && req.Method() != protocol.MethodExit:
		if isCall {
			return s.reply(ctx, reply, req.Method(), nil, jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized, "%s before initialize", req.Method()))
		}
		return nil
	case st == stateShutdown && req.Method() != protocol.MethodExit:
		if isCall {
			return s.reply(ctx, reply, req.Method(), nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s after shutdown", req.Method()))
		}
		return nil
	}
	if isCall {
		ctx = context.WithValue(ctx, replyKey{}, reply)
	}
	res, herr := h(s, ctx, req)
	if errors.Is(herr, errAsync) {
		return nil
	}
	if !isCall {
		if herr != nil {
			s.log.Printf("%s: %v", req.Method(), herr)
		}
		return nil
	}
	return s.reply(ctx, reply, req.Method(), res, herr)
}

// reply answers a call. A failure to write the reply (the client is gone) is logged, not
// returned: jsonrpc2 (v0.10.0) records a handler's error and then the stream's, and panics
// when the two have different types.
func (s *Server) reply(ctx context.Context, reply jsonrpc2.Replier, method string, res any, err error) error {
	if werr := reply(ctx, res, err); werr != nil {
		s.log.Printf("reply to %s: %v", method, werr)
	}
	return nil
}

// decode unmarshals a request's parameters, as an invalid-params error.
func decode(req jsonrpc2.Request, v any) error {
	params := req.Params()
	if len(bytes.TrimSpace(params)) == 0 || string(params) == "null" {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: no params", req.Method())
	}
	if err := json.Unmarshal(params, v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", req.Method(), err)
	}
	return nil
}

// notify sends a notification to the client; a failure (the client is gone) is logged.
func (s *Server) notify(method string, params any) {
	if err := s.conn.Notify(s.ctx, method, params); err != nil {
		s.log.Printf("notify %s: %v", method, err)
	}
}

// call sends a request to the client and waits for its reply. It must not run on the
// connection's read loop (in a handler): the reply is read there.
func (s *Server) call(method string, params, result any) error {
	return s.callCtx(s.ctx, method, params, result)
}

// callCtx is call under ctx.
func (s *Server) callCtx(ctx context.Context, method string, params, result any) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, err := s.conn.Call(ctx, method, params, result)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// logMessage shows a message in the client's log (window/logMessage).
func (s *Server) logMessage(typ protocol.MessageType, msg string) {
	s.log.Print(msg)
	s.notify(protocol.MethodWindowLogMessage, &protocol.LogMessageParams{Type: typ, Message: msg})
}

// parentGone returns a channel closed when the client's process (initialize's processId)
// is found gone.
func (s *Server) parentGone() chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.parentDead == nil {
		s.parentDead = make(chan struct{})
	}
	return s.parentDead
}

// readWriteCloser joins a reader and a writer into the connection's stream; closing it
// closes whichever of them can be.
type readWriteCloser struct {
	io.Reader
	io.Writer
}

func (rw readWriteCloser) Close() error {
	var err error
	if c, ok := rw.Reader.(io.Closer); ok && rw.Reader != os.Stdin {
		err = c.Close()
	}
	if c, ok := rw.Writer.(io.Closer); ok && rw.Writer != os.Stdout {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// tolerantStream is jsonrpc2's header-framed stream that skips (and logs) a message whose
// body is not a JSON-RPC message, instead of ending the session; a broken frame still ends it.
type tolerantStream struct {
	jsonrpc2.Stream
	log *log.Logger
}

func (t *tolerantStream) Read(ctx context.Context) (msg jsonrpc2.Message, n int64, err error) {
	for {
		msg, n, err = t.readOne(ctx)
		if err == nil || !isDecodeError(err) {
			return msg, n, err
		}
		t.log.Printf("skipped a message that is not JSON-RPC: %v", err)
	}
}

func (t *tolerantStream) readOne(ctx context.Context) (msg jsonrpc2.Message, n int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("unmarshaling jsonrpc message: panic: %v", r)
		}
	}()
	return t.Stream.Read(ctx)
}

func isDecodeError(err error) bool {
	return errors.Is(err, jsonrpc2.ErrInvalidRequest) || strings.HasPrefix(err.Error(), "unmarshaling jsonrpc message")
}
