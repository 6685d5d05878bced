// Package dap is Interleave's debug adapter: it serves the Debug Adapter Protocol (VS Code's
// debugger protocol) for exploring a test's interleavings from the editor and replaying a
// schedule step by step. Goroutines are the threads, stepping is scheduling, stepping back
// re-executes a prefix of the schedule, and variables are read from the paused test process
// through Delve's packages.
//
// The adapter builds the instrumented test binary (package instrument), starts it under its
// control with INTERLEAVE_DEBUG set to a control address, and drives it through the control
// protocol that the test process serves (package control of the engine: control.Command, control.Reply):
// the engine runs in the test process, the adapter only says what to run and where to pause.
//
// One Session serves one client. Its methods follow the protocol: one onXxxRequest per
// request, grouped by concern — launch and exploration (launch.go), stepping (stepping.go),
// threads and stacks (stack.go), scopes, variables and evaluation (variables.go), breakpoints
// and exceptions (breakpoints.go) — with the test process behind control.go and process.go.
package dap

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/go-dap"

	"github.com/interleave-dev/interleave/dap/dapext"
)

// codec decodes the standard protocol's messages and Interleave's extensions (package dapext).
var codec = dapext.NewCodec()

// Config configures a Session.
type Config struct {
	// Log receives the adapter's diagnostics (nil: discarded).
	Log io.Writer
	// NoDelve starts the test process without Delve (no Locals, no evaluate).
	NoDelve bool
	// Cache is the instrumenter's cache directory (default: the user cache directory).
	Cache string
	// AllowBuildFlags lets launch configurations pass any build flag, also those that run
	// programs or replace files (see buildflags.go). It is set from the adapter's command
	// line only, never by a client.
	AllowBuildFlags bool
	// InitTimeout bounds the wait for the initialize request of a connection that
	// ServeListener accepted (0: DefaultInitTimeout): a client that connects and stays silent
	// is closed then, so that it does not hold the port that serves one client at a time.
	InitTimeout time.Duration
}

// Session is one debugging session with one client.
type Session struct {
	cfg Config
	r   *bufio.Reader
	log *log.Logger

	wmu sync.Mutex
	w   io.Writer
	seq int

	// reqs feeds the worker, which handles requests in order; cancel, pause and disconnect are
	// handled at once by the reader, since the worker may be busy exploring or running.
	reqs chan dap.Message
	done chan struct{} // closed when the session is over
	// ctx is canceled when the session is over (it stops a build in progress).
	ctx    context.Context
	cancel context.CancelFunc

	// mu guards the debuggee, which the reader touches for cancel, pause and disconnect.
	mu     sync.Mutex
	target *target
	closed bool

	// progress is set when the client shows progress events (else progress goes to the
	// Debug Console).
	progress bool
	// initialized is set once the client sent initialize; touched by the reader only.
	initialized bool
	// conn, when set, is the connection whose reads must bring initialize before
	// initDeadline (ServeListener's connections): the reader sets its read deadline.
	conn         interface{ SetReadDeadline(time.Time) error }
	initDeadline time.Time

	// State of the paused execution; touched by the worker only.
	dbg debugState
	// running is set while the test process runs an execution (pause applies then),
	// exploring while it explores (cancel applies then).
	running, exploring atomic.Bool
	// building is set while a launch builds the test (after its response); cancelBuild, under
	// mu, stops that build (Stop during the build).
	building    atomic.Bool
	cancelBuild context.CancelFunc
}

// NewSession returns a session that reads requests from r and writes responses and events to
// w.
func NewSession(r io.Reader, w io.Writer, cfg Config) *Session {
	lw := cfg.Log
	if lw == nil {
		lw = io.Discard
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Session{
		cfg: cfg, r: bufio.NewReader(r), w: w, log: log.New(lw, "interleave dap: ", log.Ltime|log.Lmicroseconds),
		reqs: make(chan dap.Message, 64), done: make(chan struct{}), ctx: ctx, cancel: cancel,
	}
}

// Serve serves the session until the client disconnects or the input ends. It always stops
// the test process and removes the session's temporary files before returning.
func (s *Session) Serve() error {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.work()
	}()
	err := s.readLoop()
	// The client is gone (or broke the protocol), with or without disconnect: the test
	// process and the build stop now, not when an exploration in progress would end, and the
	// adapter is free for the next client.
	s.shutdown()
	close(s.reqs)
	wg.Wait()
	return err
}

// Close ends the session from outside (a signal to the adapter): the test process is killed
// and the session's temporary files are removed. Serve returns once its input ends.
func (s *Session) Close() { s.shutdown() }

// readLoop reads messages until the end of the input, a disconnect request, or a message
// that breaks the protocol: a malformed frame (the session never resynchronizes on what
// follows it: see frame.go), or any request before initialize. A well-framed message that
// cannot be decoded gets an error response when it can be identified.
func (s *Session) readLoop() error {
	if s.conn != nil && !s.initDeadline.IsZero() {
		if err := s.conn.SetReadDeadline(s.initDeadline); err != nil {
			return fmt.Errorf("set the connection's deadline for initialize: %w", err)
		}
	}
	for {
		content, err := readFrame(s.r)
		if err != nil && !s.initialized && s.conn != nil && !s.initDeadline.IsZero() && !time.Now().Before(s.initDeadline) {
			// Whatever the read came to (nothing, or part of a frame), the client did not
			// send initialize in time.
			err := &InitTimeoutError{Timeout: s.cfg.initTimeout()}
			s.log.Printf("%v", err)
			s.sendEvent(&dap.OutputEvent{Event: s.event("output"), Body: dap.OutputEventBody{Category: "stderr", Output: "interleave dap: " + err.Error() + "\n"}})
			return err
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			var fe *FrameError
			if errors.As(err, &fe) {
				s.log.Printf("closing the session: %v", fe)
				if !fe.HTTP {
					s.sendEvent(&dap.OutputEvent{Event: s.event("output"), Body: dap.OutputEventBody{Category: "stderr", Output: fmt.Sprintf("interleave dap: %v: closing the session\n", fe)}})
				}
				return fe
			}
			return fmt.Errorf("read request: %w", err)
		}
		msg, err := codec.DecodeMessage(content)
		if !s.initialized {
			// The first message must be the initialize request: nothing else is served,
			// not even an error, to a client that skipped it.
			req, ok := msg.(*dap.InitializeRequest)
			if err != nil || !ok {
				err := fmt.Errorf("the first request must be initialize (Debug Adapter Protocol): closing the session")
				if r, isReq := msg.(dap.RequestMessage); isReq {
					s.sendError(r.GetRequest(), err)
				}
				s.log.Printf("%v", err)
				return err
			}
			s.initialized = true
			if s.conn != nil && !s.initDeadline.IsZero() {
				if err := s.conn.SetReadDeadline(time.Time{}); err != nil {
					return fmt.Errorf("clear the connection's deadline: %w", err)
				}
			}
			s.queue(req)
			continue
		}
		if err != nil {
			s.malformed(content, err)
			continue
		}
		switch m := msg.(type) {
		case *dap.CancelRequest:
			s.onCancelRequest(m)
		case *dap.PauseRequest:
			s.onPauseRequest(m)
		case *dap.DisconnectRequest:
			s.onDisconnectRequest(m)
			return nil
		case *dap.TerminateRequest:
			s.onTerminateRequest(m)
		case *dap.ThreadsRequest:
			if s.running.Load() || s.exploring.Load() || s.building.Load() {
				// The worker is busy running the test: VS Code asks for threads at any time
				// and waits for the answer, so it gets one now.
				s.send(&dap.ThreadsResponse{Response: s.response(&m.Request), Body: dap.ThreadsResponseBody{Threads: []dap.Thread{{Id: 1, Name: "G0 (running)"}}}})
				continue
			}
			s.queue(msg)
		default:
			s.queue(msg)
		}
	}
}

// queue hands a request to the worker.
func (s *Session) queue(msg dap.Message) {
	select {
	case s.reqs <- msg:
	case <-s.done:
	}
}

// malformed answers a message that could not be decoded: unknown commands and bad
// arguments get an error response; anything else is logged.
func (s *Session) malformed(content []byte, err error) {
	var head struct {
		Seq     int    `json:"seq"`
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	if json.Unmarshal(content, &head) != nil || head.Type != "request" {
		s.log.Printf("malformed message: %v", err)
		s.sendEvent(&dap.OutputEvent{Event: s.event("output"), Body: dap.OutputEventBody{Category: "stderr", Output: fmt.Sprintf("interleave dap: malformed message ignored: %v\n", err)}})
		return
	}
	var fe *dap.DecodeProtocolMessageFieldError
	msg := err.Error()
	if errors.As(err, &fe) && fe.FieldName == "command" {
		msg = fmt.Sprintf("unsupported request %q", head.Command)
	}
	s.send(&dap.ErrorResponse{Response: dap.Response{ProtocolMessage: dap.ProtocolMessage{Type: "response"}, RequestSeq: head.Seq, Command: head.Command, Message: msg},
		Body: dap.ErrorResponseBody{Error: &dap.ErrorMessage{Id: 1000, Format: msg}}})
}

// work handles the queued requests in order.
func (s *Session) work() {
	for msg := range s.reqs {
		s.dispatch(msg)
	}
}

func (s *Session) dispatch(msg dap.Message) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Printf("panic handling %T: %v", msg, r)
			if req, ok := msg.(dap.RequestMessage); ok {
				s.sendError(req.GetRequest(), fmt.Errorf("internal error: %v", r))
			}
		}
	}()
	switch m := msg.(type) {
	case *dap.InitializeRequest:
		s.onInitializeRequest(m)
	case *dap.LaunchRequest:
		s.onLaunchRequest(m)
	case *dap.AttachRequest:
		s.sendError(&m.Request, errors.New("attach is not supported: use a launch configuration"))
	case *dap.ConfigurationDoneRequest:
		s.onConfigurationDoneRequest(m)
	case *dap.SetBreakpointsRequest:
		s.onSetBreakpointsRequest(m)
	case *dap.SetExceptionBreakpointsRequest:
		s.onSetExceptionBreakpointsRequest(m)
	case *dap.SetFunctionBreakpointsRequest:
		s.send(&dap.SetFunctionBreakpointsResponse{Response: s.response(&m.Request)})
	case *dap.ThreadsRequest:
		s.onThreadsRequest(m)
	case *dap.StackTraceRequest:
		s.onStackTraceRequest(m)
	case *dap.ScopesRequest:
		s.onScopesRequest(m)
	case *dap.VariablesRequest:
		s.onVariablesRequest(m)
	case *dap.EvaluateRequest:
		s.onEvaluateRequest(m)
	case *dap.ExceptionInfoRequest:
		s.onExceptionInfoRequest(m)
	case *dap.ContinueRequest:
		s.onContinueRequest(m)
	case *dap.NextRequest:
		s.onNextRequest(m)
	case *dap.StepInRequest:
		s.onStepInRequest(m)
	case *dap.StepOutRequest:
		s.onStepOutRequest(m)
	case *dap.StepBackRequest:
		s.onStepBackRequest(m)
	case *dap.ReverseContinueRequest:
		s.onReverseContinueRequest(m)
	case *dap.RestartRequest:
		s.onRestartRequest(m)
	case *dapext.GotoStepRequest:
		s.onGotoStepRequest(m)
	case *dapext.TimelineRequest:
		s.onTimelineRequest(m)
	case *dap.SourceRequest:
		s.sendError(&m.Request, errors.New("no source: every frame has a file"))
	default:
		if req, ok := msg.(dap.RequestMessage); ok {
			r := req.GetRequest()
			s.sendError(r, fmt.Errorf("unsupported request %q", r.Command))
			return
		}
		s.log.Printf("ignored message %T", msg)
	}
}

// onInitializeRequest advertises what the adapter supports.
func (s *Session) onInitializeRequest(req *dap.InitializeRequest) {
	s.progress = req.Arguments.SupportsProgressReporting
	s.send(&dap.InitializeResponse{Response: s.response(&req.Request), Body: dap.Capabilities{
		SupportsConfigurationDoneRequest: true,
		SupportsStepBack:                 true,
		SupportsRestartRequest:           true,
		SupportsCancelRequest:            true,
		SupportsExceptionInfoRequest:     true,
		SupportsTerminateRequest:         true,
		SupportsEvaluateForHovers:        true,
		SupportTerminateDebuggee:         true,
		ExceptionBreakpointFilters:       exceptionFilters(),
	}})
}

// onDisconnectRequest ends the session: the test process is stopped and the temporary files
// are removed, whatever state the session is in.
func (s *Session) onDisconnectRequest(req *dap.DisconnectRequest) {
	s.shutdown()
	s.send(&dap.DisconnectResponse{Response: s.response(&req.Request)})
}

// onTerminateRequest stops the test process; the session ends with a terminated event.
func (s *Session) onTerminateRequest(req *dap.TerminateRequest) {
	s.send(&dap.TerminateResponse{Response: s.response(&req.Request)})
	// The developer pressed Stop: the Debug Console says so, and no notification does
	// (an "important" output is a toast in VS Code, on every Stop).
	s.mu.Lock()
	cancelBuild := s.cancelBuild
	s.mu.Unlock()
	if cancelBuild != nil {
		// The launch that builds ends the session when its build stops.
		cancelBuild()
		return
	}
	s.stopTargetAs("console", "terminated by the client")
}

// shutdown stops the test process and removes temporary files. It is idempotent.
func (s *Session) shutdown() {
	s.mu.Lock()
	t := s.target
	s.target = nil
	first := !s.closed
	s.closed = true
	s.mu.Unlock()
	if t != nil {
		t.close()
	}
	if first {
		s.cancel()
		close(s.done)
	}
}

// stopTarget ends the test process and tells the client why, as a notification: the session
// ended for a reason the developer did not choose.
func (s *Session) stopTarget(why string) { s.stopTargetAs("important", why) }

// stopTargetAs ends the test process and tells the client why in an output event of category.
func (s *Session) stopTargetAs(category, why string) {
	s.mu.Lock()
	t := s.target
	s.target = nil
	s.mu.Unlock()
	if t == nil {
		return
	}
	t.close()
	s.terminatedAs(category, why)
}

// terminated sends the output and terminated events that end a debuggee, why as a
// notification.
func (s *Session) terminated(why string) { s.terminatedAs("important", why) }

func (s *Session) terminatedAs(category, why string) {
	if why != "" {
		s.output(category, why+"\n")
	}
	s.sendEvent(&dap.TerminatedEvent{Event: s.event("terminated")})
}

func (s *Session) currentTarget() *target {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.target
}

// Messages.

func (s *Session) send(m dap.Message) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.seq++
	switch x := m.(type) {
	case dap.ResponseMessage:
		x.GetResponse().Seq = s.seq
	case dap.EventMessage:
		x.GetEvent().Seq = s.seq
	}
	if err := dap.WriteProtocolMessage(s.w, m); err != nil {
		s.log.Printf("write %T: %v", m, err)
	}
}

func (s *Session) sendEvent(m dap.EventMessage) { s.send(m) }

func (s *Session) response(req *dap.Request) dap.Response {
	return dap.Response{ProtocolMessage: dap.ProtocolMessage{Type: "response"}, Command: req.Command, RequestSeq: req.Seq, Success: true}
}

func (s *Session) event(name string) dap.Event {
	return dap.Event{ProtocolMessage: dap.ProtocolMessage{Type: "event"}, Event: name}
}

func (s *Session) sendError(req *dap.Request, err error) {
	resp := s.response(req)
	resp.Success = false
	resp.Message = err.Error()
	s.send(&dap.ErrorResponse{Response: resp, Body: dap.ErrorResponseBody{Error: &dap.ErrorMessage{Id: 2000, Format: err.Error(), ShowUser: true}}})
}

func (s *Session) output(category, text string) {
	s.sendEvent(&dap.OutputEvent{Event: s.event("output"), Body: dap.OutputEventBody{Category: category, Output: text}})
}

// outputWriter streams writes as output events.
type outputWriter struct {
	s        *Session
	category string
}

func (w outputWriter) Write(p []byte) (int, error) {
	w.s.output(w.category, string(p))
	return len(p), nil
}
