package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/interleave-dev/interleave/engine/runopts"
	"github.com/interleave-dev/interleave/engine/store"
)

// CommandRunTest is the command a client executes on the server to explore a test without a
// debugger: interleave.runTest with the arguments package directory, test name and an
// optional object of options ({"schedules": 1000, "strategy": "pct"}: those of package
// runopts, which become flags of interleave test; nothing else is accepted). It
// runs interleave test -json in the background with work-done progress (cancellable),
// publishes what the run found when it ends, and returns the test's final event.
const CommandRunTest = "interleave.runTest"

// RunTestArgs are interleave.runTest's arguments.
type RunTestArgs struct {
	Dir     string
	Test    string
	Options map[string]any
}

// parseRunTestArgs reads [dir, test, options?] or [{"dir", "test", "options"}].
func parseRunTestArgs(args []any) (RunTestArgs, error) {
	var a RunTestArgs
	if len(args) == 1 {
		if m, ok := args[0].(map[string]any); ok {
			a.Dir, _ = m["dir"].(string)
			a.Test, _ = m["test"].(string)
			var ok bool
			if a.Options, ok = m["options"].(map[string]any); !ok && m["options"] != nil {
				return a, fmt.Errorf("%s: options %v: want an object", CommandRunTest, m["options"])
			}
			args = nil
		}
	}
	if len(args) >= 2 {
		a.Dir, _ = args[0].(string)
		a.Test, _ = args[1].(string)
		if len(args) >= 3 {
			var ok bool
			if a.Options, ok = args[2].(map[string]any); !ok && args[2] != nil {
				return a, fmt.Errorf("%s: options %v: want an object", CommandRunTest, args[2])
			}
		}
	}
	if a.Dir == "" || a.Test == "" {
		return a, fmt.Errorf("%s: want the arguments package directory, test name and (optional) options, got %v", CommandRunTest, args)
	}
	if st, err := os.Stat(a.Dir); err != nil || !st.IsDir() {
		return a, fmt.Errorf("%s: package directory %s: not a directory", CommandRunTest, a.Dir)
	}
	return a, nil
}

// flags checks the options (package runopts: the options a launch configuration of the
// debug adapter takes, and those of a run such as junit) and turns them into interleave
// test's flags: any other key, a value that fails its option's check, and a report outside
// the module's results store are refused.
func (a RunTestArgs) flags() ([]string, error) {
	cfg := runopts.Config{Surface: runopts.Test, DefaultStrategy: runopts.TestStrategy, Dir: a.Dir,
		Reserved: map[string]string{
			"run":  "set by " + CommandRunTest + " from its test argument",
			"json": "set by " + CommandRunTest + ", which reads the run's events",
		}}
	if root, _, ok := store.FindModule(a.Dir); ok {
		cfg.Store = filepath.Join(root, store.Dir)
	}
	o, err := runopts.Parse(a.Options, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", CommandRunTest, err)
	}
	return o.Flags(runopts.TestStrategy), nil
}

// tokens numbers the runs.
var tokens atomic.Int64

// run is an interleave.runTest run in progress.
type run struct {
	cancel context.CancelFunc
	token  string // its progress token, "" without one
}

// executeCommand runs interleave.runTest. It replies when the run ends, without holding up
// the other requests.
func (s *Server) executeCommand(ctx context.Context, req jsonrpc2.Request) (any, error) {
	var p protocol.ExecuteCommandParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	if p.Command != CommandRunTest {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q", p.Command)
	}
	args, err := parseRunTestArgs(p.Arguments)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	flags, err := args.flags()
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%v", err)
	}
	reply, _ := ctx.Value(replyKey{}).(jsonrpc2.Replier)
	if reply == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s must be a request", CommandRunTest)
	}
	var token *protocol.ProgressToken
	if p.WorkDoneToken != nil {
		token = p.WorkDoneToken
	}
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		res, err := s.runTest(ctx, args, flags, token)
		if err := reply(ctx, res, err); err != nil {
			s.log.Printf("reply to %s: %v", CommandRunTest, err)
		}
	}()
	return nil, errAsync
}

// progress reports work-done progress on a token.
type progress struct {
	s     *Server
	token *protocol.ProgressToken
}

func (p *progress) send(v any) {
	if p.token == nil {
		return
	}
	p.s.notify(protocol.MethodProgress, &protocol.ProgressParams{Token: *p.token, Value: v})
}

// runTest runs interleave test -json for one test; ctx is canceled by $/cancelRequest.
func (s *Server) runTest(ctx context.Context, a RunTestArgs, flags []string, token *protocol.ProgressToken) (any, error) {
	// The run is registered first, so that the end of the session stops it at any point.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	id := tokens.Add(1)
	s.mu.Lock()
	s.runs[id] = &run{cancel: cancel}
	if s.stopping {
		cancel()
	}
	workDone := s.caps.Window != nil && s.caps.Window.WorkDoneProgress
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.runs, id)
		s.mu.Unlock()
	}()
	if token == nil && workDone {
		t := protocol.NewProgressToken(fmt.Sprintf("interleave-run-%d", id))
		if err := s.callCtx(ctx, protocol.MethodWorkDoneProgressCreate, &protocol.WorkDoneProgressCreateParams{Token: *t}, nil); err == nil {
			token = t
		} else {
			s.log.Printf("%v", err)
		}
	}
	if ctx.Err() != nil {
		return nil, jsonrpc2.NewError(protocol.CodeRequestCancelled, "interleave.runTest: canceled")
	}
	if token != nil {
		s.mu.Lock()
		s.runs[id].token = token.String()
		s.mu.Unlock()
	}
	prog := &progress{s: s, token: token}
	title := "Exploring " + a.Test
	prog.send(&protocol.WorkDoneProgressBegin{Kind: protocol.WorkDoneProgressKindBegin, Title: title, Cancellable: true, Message: "building"})

	exe := s.cfg.Executable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("%s: %w", CommandRunTest, err)
		}
	}
	top, _, _ := strings.Cut(a.Test, "/")
	cmdArgs := append([]string{"test", "-json", "-run", "^" + regexp.QuoteMeta(top) + "$"}, flags...)
	cmdArgs = append(cmdArgs, ".")
	cmd := exec.CommandContext(ctx, exe, cmdArgs...)
	cmd.Dir = a.Dir
	// Canceling interrupts the run, which keeps what it found; the whole process group, so
	// that the test binary stops too (proc_unix.go, proc_windows.go).
	interruptTree(cmd)
	cmd.WaitDelay = 10 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", CommandRunTest, err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: start %s: %w", CommandRunTest, exe, err)
	}
	var final json.RawMessage
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e struct {
			Action        string
			Test          string
			Elapsed       float64
			Schedules     int
			Interleavings int
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch e.Action {
		case "progress":
			rate := 0.0
			if e.Elapsed > 0 {
				rate = float64(e.Schedules) / e.Elapsed
			}
			prog.send(&protocol.WorkDoneProgressReport{Kind: protocol.WorkDoneProgressKindReport, Cancellable: true,
				Message: fmt.Sprintf("%d schedules, %.0f/s, %d distinct interleavings", e.Schedules, rate, e.Interleavings)})
		case "pass", "fail", "skip":
			if e.Test == top {
				final = append(json.RawMessage(nil), sc.Bytes()...)
			}
		}
	}
	waitErr := cmd.Wait()
	s.refresh() // the run wrote the store: publish now, whether or not the client watches it
	canceled := ctx.Err() != nil
	end := &protocol.WorkDoneProgressEnd{Kind: protocol.WorkDoneProgressKindEnd}
	switch {
	case canceled:
		end.Message = "canceled"
	case final != nil:
		var e struct {
			Action        string
			Schedules     int
			Interleavings int
			Bug           *struct{ Kind string }
		}
		json.Unmarshal(final, &e)
		end.Message = fmt.Sprintf("%s: %d schedules, %d distinct interleavings", e.Action, e.Schedules, e.Interleavings)
		if e.Bug != nil {
			end.Message += ", " + e.Bug.Kind
		}
	default:
		end.Message = "failed"
	}
	prog.send(end)
	if canceled && final == nil {
		return nil, jsonrpc2.NewError(protocol.CodeRequestCancelled, "interleave.runTest: canceled")
	}
	if final == nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = msg[len(msg)-2000:]
		}
		return nil, fmt.Errorf("interleave test: %v: %s", waitErr, msg)
	}
	return final, nil
}

// workDoneProgressCancel cancels the run of a progress token.
func (s *Server) workDoneProgressCancel(ctx context.Context, req jsonrpc2.Request) (any, error) {
	var p protocol.WorkDoneProgressCancelParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runs {
		if r.token == p.Token.String() {
			r.cancel()
		}
	}
	return nil, nil
}
