package dap

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-dap"

	"github.com/interleave-dev/interleave/dap/dapext"
	"github.com/interleave-dev/interleave/engine/control"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// Stepping is scheduling: the test process pauses at every scheduling point the adapter asks
// for, and a step runs one goroutine's next visible operation. Going back re-executes a
// prefix of the schedule in a new execution of the test body: re-executing 10,000 steps takes
// about 20 ms in the debug build, so a step back needs no checkpoints (BenchmarkStepLatency
// measures it).

// debugState is what the adapter knows about the paused execution. Only the worker touches it.
type debugState struct {
	// origin is the schedule the session started from: the replayed file, or the bug that
	// exploring found.
	origin *schedule.File
	// plan is the schedule the current execution follows; exceptionAt the step count at which
	// the plan's bug is one step away (-1: none).
	plan        []schedule.Step
	exceptionAt int
	// trace is the decisions of the current execution so far.
	trace []schedule.Step
	// seen is the longest trace the executions have shown since the plan last changed, and
	// seenInfo what the test process said of each of its decisions: the timeline's steps.
	seen     []schedule.Step
	seenInfo []control.StepInfo
	// names caches the names of operations' objects by position (timeline.go).
	names map[string]string
	// state is the last reply of the test process; stopped says why the client was told it
	// stopped.
	state   *control.State
	stopped string

	// Breakpoints: lines by absolute file, and the exception filters that are on.
	breakpoints map[string][]int
	filters     map[string]bool

	// Handles of the current stop.
	frames []frameHandle
	refs   []func() ([]value, error)
}

// run sends a run command and reports where the execution stopped. reason, when not empty,
// overrides the stop reason the test process gave (entry, exception).
func (s *Session) run(t *target, c control.Command, reason string) {
	s.dbg.plan, s.dbg.exceptionAt = c.Steps, c.ExceptionAt
	s.resume()
	r, err := s.call(t, c)
	s.stoppedAfter(t, r, err, reason)
}

// call sends a run command (with the breakpoints, and a schedule already sent as SameSteps)
// and returns the test process's reply.
func (s *Session) call(t *target, c control.Command) (*control.Reply, error) {
	if c.Breakpoints == nil {
		c.Breakpoints = s.breakpointList(t)
	}
	// A long schedule is sent once: encoding 10,000 steps would cost more than running them.
	if len(c.Steps) > 0 && len(c.Steps) == len(t.sentSteps) && &c.Steps[0] == &t.sentSteps[0] {
		c.Steps, c.SameSteps = nil, true
	} else {
		t.sentSteps = c.Steps
	}
	return t.call(c)
}

// resume marks the execution running. After a stop the client was told of, it says that every
// goroutine moves on (a step of one is a new state of all): without this event VS Code clears
// only the stepped thread's stop reason, and the others keep theirs (G1 still "PAUSED ON
// EXCEPTION" steps later).
func (s *Session) resume() {
	if st := s.dbg.state; st != nil && s.dbg.stopped != "" {
		s.dbg.stopped = ""
		s.sendEvent(&dap.ContinuedEvent{Event: s.event("continued"), Body: dap.ContinuedEventBody{ThreadId: max(st.Next+1, 1), AllThreadsContinued: true}})
	}
	s.running.Store(true)
}

// stoppedAfter records the test process's reply to a command that ran the execution, and tells
// the client where it stopped.
func (s *Session) stoppedAfter(t *target, r *control.Reply, err error, reason string) {
	s.running.Store(false)
	if err != nil {
		var ce *commandError
		if errors.As(err, &ce) {
			s.output("stderr", "interleave: "+err.Error()+"\n")
			return
		}
		// The process ended: watch reports it.
		s.log.Printf("command: %v", err)
		return
	}
	st := r.State
	if st == nil {
		s.log.Printf("reply %q without a state", r.Kind)
		return
	}
	s.record(st)
	s.dbg.state = st
	s.dbg.frames, s.dbg.refs = nil, nil
	if st.Diverged != "" && st.Following == false && reason == "" && st.Reason != "step" {
		s.output("console", "the execution left the schedule: "+st.Diverged+"\n")
	}
	if st.Err != "" {
		s.output("stderr", "interleave: "+st.Err+"\n")
	}
	if st.Ended && st.Bug != nil {
		for _, l := range st.Bug.Logs {
			s.output("stdout", l+"\n")
		}
	}
	for _, r := range st.Races {
		s.output("console", raceLine(r))
	}
	if st.Saved != "" {
		s.output("console", "the new schedule is saved in "+st.Saved+"\n")
	}
	if reason == "" {
		reason = st.Reason
	}
	thread := st.Next + 1
	body := dap.StoppedEventBody{AllThreadsStopped: true}
	if bug := s.currentBug(); reason == "exception" || (st.Ended && bug != nil) {
		if bug != nil && s.filterOn(bug.Kind) {
			reason = "exception"
			body.Description = "Paused on " + bug.Kind
			body.Text = bugDescription(bug, st)
			if st.Ended {
				thread = bug.G + 1
			}
		} else if reason == "exception" {
			reason = "step"
		}
	}
	if st.Ended && reason != "exception" {
		reason = "end"
		body.Description = fmt.Sprintf("The execution ended after %d steps", st.Step)
	}
	if thread <= 0 {
		thread = 1
	}
	body.Reason, body.ThreadId = reason, thread
	s.dbg.stopped = reason
	s.sendEvent(&dap.StoppedEvent{Event: s.event("stopped"), Body: body})
	s.sendStep(st)
}

// sendStep tells the client where the paused execution is in its schedule (dapext.StepEvent),
// for a timeline of the schedule to follow.
func (s *Session) sendStep(st *control.State) {
	body := dapext.StepEventBody{Step: st.Step, Current: currentStep(st), Steps: runSteps(s.dbg.plan), Following: st.Following, Ended: st.Ended}
	if !st.Following {
		body.Steps = runSteps(s.dbg.trace)
	}
	if o := s.dbg.origin; o != nil {
		body.Schedule = o.Path
	}
	s.sendEvent(&dapext.StepEvent{Event: s.event(dapext.StepEventName), Body: body})
}

// raceLine is a line of the Debug Console for a race the engine describes: its description
// already begins "data race", which a prefix said twice ("data race: data race between ...").
func raceLine(r string) string {
	if !strings.HasPrefix(r, "data race") {
		r = "data race: " + r
	}
	return r + "\n"
}

// currentStep is the step the paused execution is before, numbered from 1 (the next
// goroutine's pending operation is that step), 0 once the execution has ended. The Scheduler
// scope, the step event and so the timeline all number steps so.
func currentStep(st *control.State) int {
	if st.Ended {
		return 0
	}
	return st.Step + 1
}

// runSteps counts the steps that run a goroutine (not the data choices).
func runSteps(steps []schedule.Step) int {
	n := 0
	for _, d := range steps {
		if d.Kind == schedule.Run {
			n++
		}
	}
	return n
}

// currentBug is the bug to show: the ended execution's, or, while the execution follows the
// origin schedule, the bug it is heading to.
func (s *Session) currentBug() *control.Bug {
	st := s.dbg.state
	if st == nil {
		return nil
	}
	if st.Ended {
		return st.Bug
	}
	if o := s.dbg.origin; o != nil && o.Bug != nil && st.Following && s.dbg.exceptionAt >= 0 && st.Step >= s.dbg.exceptionAt {
		return &control.Bug{Kind: o.Bug.Kind, Message: o.Bug.Message, Pos: o.Bug.Pos, Step: o.Bug.Step, G: int(o.Bug.G)}
	}
	return nil
}

// paused returns the target and the state of the paused execution, or an error.
func (s *Session) paused() (*target, *control.State, error) {
	t := s.currentTarget()
	if t == nil {
		return nil, nil, errors.New("no test process")
	}
	if s.dbg.state == nil {
		return nil, nil, errors.New("the execution is not paused")
	}
	return t, s.dbg.state, nil
}

func (s *Session) onNextRequest(req *dap.NextRequest) {
	s.step(&req.Request, req.Arguments.ThreadId, func() { s.send(&dap.NextResponse{Response: s.response(&req.Request)}) })
}

func (s *Session) onStepInRequest(req *dap.StepInRequest) {
	s.step(&req.Request, req.Arguments.ThreadId, func() { s.send(&dap.StepInResponse{Response: s.response(&req.Request)}) })
}

// onStepOutRequest steps like next: a scheduling step has no frames to leave.
func (s *Session) onStepOutRequest(req *dap.StepOutRequest) {
	s.step(&req.Request, req.Arguments.ThreadId, func() { s.send(&dap.StepOutResponse{Response: s.response(&req.Request)}) })
}

// step runs one scheduling step: the schedule's next one when threadID is the goroutine
// that runs next (the thread the stopped event named), else the next step of goroutine
// threadID if it is enabled — manual scheduling, after which the execution no longer follows
// its schedule.
func (s *Session) step(req *dap.Request, threadID int, respond func()) {
	t, st, err := s.paused()
	if err != nil {
		s.sendError(req, err)
		return
	}
	if st.Ended {
		s.sendError(req, fmt.Errorf("the execution has ended after %d steps: step back, or restart", st.Step))
		return
	}
	g := threadID - 1
	if g == st.Next || threadID <= 0 {
		g = -1
	} else {
		gs := goroutineOf(st, g)
		switch {
		case gs == nil:
			s.sendError(req, fmt.Errorf("there is no goroutine G%d", g))
			return
		case gs.Status != "enabled":
			// Not an error of the request: the developer asked to run a goroutine that
			// cannot run now. The Debug Console says why, and the view stays where it was,
			// on that goroutine.
			respond()
			s.output("console", fmt.Sprintf("G%d cannot run: it is %s at %s %s; step an enabled goroutine, or G%d, which runs next\n", g, gs.Status, gs.Op, gs.Pos, st.Next))
			s.sendEvent(&dap.StoppedEvent{Event: s.event("stopped"), Body: dap.StoppedEventBody{Reason: "step", ThreadId: threadID, AllThreadsStopped: true,
				Description: fmt.Sprintf("G%d cannot run (%s)", g, gs.Status)}})
			return
		}
	}
	respond()
	s.resume()
	r, err := t.call(control.Command{Cmd: "step", G: g})
	s.stoppedAfter(t, r, err, "")
}

func (s *Session) onContinueRequest(req *dap.ContinueRequest) {
	t, _, err := s.paused()
	if err != nil {
		s.sendError(req.GetRequest(), err)
		return
	}
	s.send(&dap.ContinueResponse{Response: s.response(&req.Request), Body: dap.ContinueResponseBody{AllThreadsContinued: true}})
	s.resume()
	r, err := t.call(control.Command{Cmd: "continue", G: -1, Breakpoints: s.breakpointList(t)})
	s.stoppedAfter(t, r, err, "")
}

// onStepBackRequest goes back one step: the execution is replaced by a new one that follows
// the same decisions and pauses one step earlier.
func (s *Session) onStepBackRequest(req *dap.StepBackRequest) {
	t, st, err := s.paused()
	if err != nil {
		s.sendError(&req.Request, err)
		return
	}
	if st.Step == 0 {
		s.sendError(&req.Request, errors.New("the execution is at its first step"))
		return
	}
	s.send(&dap.StepBackResponse{Response: s.response(&req.Request)})
	s.rerun(t, st, st.Step-1, "step")
}

// onReverseContinueRequest goes back to the previous step that stops at a breakpoint, or to
// the first step.
func (s *Session) onReverseContinueRequest(req *dap.ReverseContinueRequest) {
	t, st, err := s.paused()
	if err != nil {
		s.sendError(&req.Request, err)
		return
	}
	s.send(&dap.ReverseContinueResponse{Response: s.response(&req.Request)})
	bps := make(map[string]bool)
	for _, b := range s.breakpointList(t) {
		bps[b] = true
	}
	stop, reason := 0, "entry"
	run := 0
	for _, d := range s.dbg.trace {
		if d.Kind != schedule.Run {
			continue
		}
		// Run step number run+1 executes d: pausing after run steps stops before it.
		if run >= st.Step {
			break
		}
		if bps[lineOf(d.Pos)] && run < st.Step {
			stop, reason = run, "breakpoint"
		}
		run++
	}
	s.rerun(t, st, stop, reason)
}

// rerun replaces the execution by one that follows the same decisions and pauses after n
// steps.
func (s *Session) rerun(t *target, st *control.State, n int, reason string) {
	c := t.runCommand(s.dbg.origin)
	c.Steps, c.ExceptionAt, c.Stop = s.dbg.plan, s.dbg.exceptionAt, n
	if !st.Following {
		// The execution left its plan (manual scheduling): what it did is the new plan.
		c.Steps, c.ExceptionAt = append([]schedule.Step(nil), s.dbg.trace...), -1
	}
	s.run(t, c, reason)
}

// onGotoStepRequest moves the paused execution to another step of its schedule, as a click on
// the timeline asks: it is replaced by a new execution that follows the same decisions and
// pauses after the asked number of steps (a step back is the case of one step less).
func (s *Session) onGotoStepRequest(req *dapext.GotoStepRequest) {
	t, st, err := s.paused()
	if err != nil {
		s.sendError(&req.Request, err)
		return
	}
	n := req.Arguments.Step
	plan := s.dbg.plan
	if !st.Following {
		plan = s.dbg.trace
	}
	if total := runSteps(plan); n < 0 || n > total {
		s.sendError(&req.Request, fmt.Errorf("%s: step %d is not in the schedule, which has %d steps", dapext.GotoStepCommand, n, total))
		return
	}
	s.send(&dapext.GotoStepResponse{Response: s.response(&req.Request)})
	s.rerun(t, st, n, "goto")
}

// onRestartRequest restarts the replay of the session's schedule, paused at its first step.
func (s *Session) onRestartRequest(req *dap.RestartRequest) {
	t := s.currentTarget()
	if t == nil || s.dbg.origin == nil {
		s.sendError(&req.Request, errors.New("nothing to restart"))
		return
	}
	s.send(&dap.RestartResponse{Response: s.response(&req.Request)})
	c := t.runCommand(s.dbg.origin)
	c.Stop = 0
	s.run(t, c, "entry")
}

// onPauseRequest stops a running execution at its next scheduling point.
func (s *Session) onPauseRequest(req *dap.PauseRequest) {
	s.send(&dap.PauseResponse{Response: s.response(&req.Request)})
	if t := s.currentTarget(); t != nil && s.running.Load() {
		t.send(control.Command{Cmd: "pause", G: -1})
	}
}

func goroutineOf(st *control.State, g int) *control.Goroutine {
	for i := range st.Goroutines {
		if st.Goroutines[i].ID == g {
			return &st.Goroutines[i]
		}
	}
	return nil
}

// lineOf strips the column of a position: "f.go:12:3" → "f.go:12".
func lineOf(pos string) string {
	i := strings.LastIndexByte(pos, ':')
	if i < 0 {
		return pos
	}
	if j := strings.LastIndexByte(pos[:i], ':'); j > 0 {
		return pos[:i]
	}
	return pos
}
