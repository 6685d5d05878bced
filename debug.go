package interleave

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// The debugging session (interleave dap).
//
// When INTERLEAVE_DEBUG=<addr> is set, RunTest hands the test to debugTest, which connects to
// the debug adapter's control address and serves the control protocol: newline-separated
// JSON, one DebugCommand from the adapter at a time, answered by DebugReply messages. The
// adapter is in charge; the test process only executes:
//
//	explore   explore with a strategy until the first bug (progress replies while it runs;
//	          a "cancel" command stops it, keeping what was found), then reply "explored"
//	run       start a new execution that follows Steps, pausing when Stop steps have been
//	          executed (or, with Continue, at a breakpoint, at ExceptionAt, or at the end);
//	          reply "paused" (or "ended")
//	step      while paused: run one step, of goroutine G if G >= 0 (manual scheduling: the
//	          execution leaves the schedule it followed), else the next one of the schedule
//	continue  while paused: run until a breakpoint line, ExceptionAt, a pause, or the end
//	pause     while running: stop at the next scheduling point
//	quit      end the session; the test returns
//
// Every execution is one engine.Run under debugStrategy, whose Pick blocks while the
// execution is paused. Going back in a schedule is re-executing a prefix of it: a new run.
// While paused, the goroutines of the test are parked at their scheduling points, and the
// paused reply describes each of them: its engine id, its runtime goroutine id (for a
// debugger attached to the process), its pending operation and state, its user frames, the
// locks it holds and the channels it waits on.

// DebugCommand is a command of the control protocol, from the adapter to the test process.
type DebugCommand struct {
	Cmd string `json:"cmd"`

	// explore
	Strategy  string            `json:"strategy,omitempty"`
	Params    map[string]string `json:"params,omitempty"`
	Seed      uint64            `json:"seed,omitempty"`
	Schedules int               `json:"schedules,omitempty"`
	Time      time.Duration     `json:"time,omitempty"`

	// run: the decisions to follow, and where to pause. SameSteps follows the Steps of the
	// previous run again (a long schedule is sent once).
	Steps     []schedule.Step `json:"steps,omitempty"`
	SameSteps bool            `json:"sameSteps,omitempty"`
	// Stop pauses the execution when Stop steps have been executed (at the decision of step
	// Stop+1); -1 runs as "continue" does.
	Stop int `json:"stop"`
	// ExceptionAt is the number of steps executed when the schedule's bug is one step away
	// (bug step - 1): continuing stops there. -1: none.
	ExceptionAt int `json:"exceptionAt"`
	// Breakpoints are "file:line" positions, file as in operation positions (relative to the
	// module root).
	Breakpoints []string `json:"breakpoints,omitempty"`
	// Save is the directory where the schedule of an execution that left Steps is saved when
	// it ends ("" : the module's .interleave/schedules).
	Save string `json:"save,omitempty"`

	// Points and RacyPoints are the scheduling-points mode ("all", "sync", "racy"; empty:
	// all) and the racy positions, as the schedule file records them; Races is "report" (the
	// default: the race detector runs, races are findings), "fail" (the first race is a bug)
	// or "off".
	Points     string   `json:"points,omitempty"`
	RacyPoints []string `json:"racyPoints,omitempty"`
	Races      string   `json:"races,omitempty"`
	// Then is the strategy ("name" or "name:key=value,...", seeded with Seed) that picks the
	// steps once an execution has left Steps; empty: no preemption (the goroutine that ran
	// last goes on while it is enabled, else the first enabled one).
	Then string `json:"then,omitempty"`
	// MaxSteps is the livelock bound (0: the engine's default, or for a run twice the
	// steps it follows).
	MaxSteps int `json:"maxSteps,omitempty"`

	// step: the goroutine to run; -1 for the next step of the schedule.
	G int `json:"g"`
}

// config is the engine configuration of an exploration or an execution of the session.
func (c *DebugCommand) config(name string) (engine.Config, error) {
	cfg := engine.Config{Name: name, MaxSteps: c.MaxSteps}
	if c.Points != "" {
		p, err := engine.ParsePoints(c.Points)
		if err != nil {
			return cfg, err
		}
		cfg.Points, cfg.RacyPoints = p, c.RacyPoints
	}
	switch c.Races {
	case "", "report":
		cfg.Races = true
	case "fail":
		cfg.Races, cfg.RacesFail = true, true
	case "off":
	default:
		return cfg, fmt.Errorf("races %q: want report, fail or off", c.Races)
	}
	return cfg, nil
}

// DebugReply is a message of the control protocol, from the test process to the adapter.
type DebugReply struct {
	// Kind is "hello", "progress", "explored", "paused", "ended" or "error".
	Kind     string         `json:"kind"`
	Test     *schedule.Test `json:"test,omitempty"`
	Progress *DebugProgress `json:"progress,omitempty"`
	Explored *DebugExplored `json:"explored,omitempty"`
	State    *DebugState    `json:"state,omitempty"`
	Error    string         `json:"error,omitempty"`
}

// DebugProgress is the progress of an exploration.
type DebugProgress struct {
	Schedules     int     `json:"schedules"`
	Interleavings int     `json:"interleavings"`
	Elapsed       float64 `json:"elapsed"` // seconds
}

// DebugExplored is the outcome of an exploration.
type DebugExplored struct {
	DebugProgress
	Stopped   string    `json:"stopped"`
	Exhausted string    `json:"exhausted,omitempty"`
	Error     string    `json:"error,omitempty"`
	Bug       *DebugBug `json:"bug,omitempty"`
	// File is the schedule of the first bug, saved at File.Path.
	File     *schedule.File `json:"file,omitempty"`
	Strategy string         `json:"strategy,omitempty"`
	// Races are the data races found, described.
	Races []string `json:"races,omitempty"`
}

// DebugBug is a bug found by an execution.
type DebugBug struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Pos     string `json:"pos"`
	Step    int    `json:"step"`
	G       int    `json:"g"`
	// Logs are the test's log lines of the execution (t.Log, t.Error, ...).
	Logs []string `json:"logs,omitempty"`
}

// DebugState is the state of a paused (or ended) execution.
type DebugState struct {
	// Step is the number of steps executed.
	Step int `json:"step"`
	// Ended is set when the execution is over; Bug is its bug, if any.
	Ended bool      `json:"ended,omitempty"`
	Bug   *DebugBug `json:"bug,omitempty"`
	// Reason says why the execution paused: "step", "breakpoint", "exception", "pause",
	// "end".
	Reason string `json:"reason"`
	// Next is the goroutine that runs the next step when the execution goes on by the
	// schedule (or by the default policy once it left it).
	Next int `json:"next"`
	// Following is true while the execution follows the steps it was started with.
	Following bool `json:"following"`
	// Diverged says why the execution left them, if it did by itself (nondeterminism).
	Diverged string `json:"diverged,omitempty"`
	// TraceFrom and Trace are the decisions made since the execution's previous reply,
	// starting at index TraceFrom of its schedule.
	TraceFrom  int              `json:"traceFrom"`
	Trace      []schedule.Step  `json:"trace,omitempty"`
	Goroutines []DebugGoroutine `json:"goroutines"`
	// Saved is the schedule file an execution that left its schedule was saved to (at its
	// end).
	Saved string `json:"saved,omitempty"`
	// Err is the error that ended the execution (a replay divergence, a limitation).
	Err string `json:"err,omitempty"`
	// Races are the data races the execution showed (at its end), described.
	Races []string `json:"races,omitempty"`
}

// DebugGoroutine describes one goroutine of a paused execution.
type DebugGoroutine struct {
	ID      int    `json:"id"`
	Parent  int    `json:"parent"`
	Created string `json:"created,omitempty"`
	Status  string `json:"status"`
	Op      string `json:"op,omitempty"`
	Pos     string `json:"pos,omitempty"`
	// Goid is the runtime's goroutine id (0 when unknown).
	Goid   int64          `json:"goid,omitempty"`
	Frames []engine.Frame `json:"frames,omitempty"`
	Holds  []string       `json:"holds,omitempty"`
	Waits  []DebugChan    `json:"waits,omitempty"`
	// Clock is the goroutine's vector clock (element i: how much of Gi happens before its
	// next step), when the race detector runs.
	Clock []uint32 `json:"clock,omitempty"`
}

// DebugChan is a channel a goroutine waits on.
type DebugChan struct {
	Addr      string   `json:"addr"`
	Send      bool     `json:"send"`
	Cap       int      `json:"cap"`
	Len       int      `json:"len"`
	Closed    bool     `json:"closed,omitempty"`
	Values    []string `json:"values,omitempty"`
	Senders   []int    `json:"senders,omitempty"`
	Receivers []int    `json:"receivers,omitempty"`
}

// debugTest serves a debugging session of the test body over the control connection at addr
// (INTERLEAVE_DEBUG, set by interleave dap).
func debugTest(t *testing.T, body func(*T), addr string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("interleave: debug session: connect to the adapter at %s: %v", addr, err)
	}
	defer conn.Close()
	s := &debugSession{
		t: t, body: body, info: testInfo(t), enc: json.NewEncoder(conn),
		cmds: make(chan DebugCommand, 16),
	}
	go s.read(conn)
	s.reply(&DebugReply{Kind: "hello", Test: &s.info})
	s.serve()
}

// debugSession is the test process's side of a debugging session.
type debugSession struct {
	t    *testing.T
	body func(*T)
	info schedule.Test

	wmu sync.Mutex
	enc *json.Encoder

	cmds     chan DebugCommand // closed when the connection ends
	pauseReq atomic.Bool
	cmu      sync.Mutex
	cancel   context.CancelFunc // the exploration in progress

	strat *debugStrategy
	steps []schedule.Step // of the last run
}

// read decodes commands. "cancel" and "pause" act at once (an exploration or a running
// execution does not read commands); the others are queued.
func (s *debugSession) read(conn net.Conn) {
	defer close(s.cmds)
	dec := json.NewDecoder(bufio.NewReader(conn))
	for {
		var c DebugCommand
		if err := dec.Decode(&c); err != nil {
			return
		}
		switch c.Cmd {
		case "cancel":
			s.cmu.Lock()
			if s.cancel != nil {
				s.cancel()
			}
			s.cmu.Unlock()
		case "pause":
			s.pauseReq.Store(true)
		default:
			s.cmds <- c
		}
	}
}

func (s *debugSession) reply(r *DebugReply) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.enc.Encode(r); err != nil {
		fmt.Fprintf(os.Stderr, "interleave: debug session: %v\n", err)
	}
}

func (s *debugSession) errorf(format string, args ...any) {
	s.reply(&DebugReply{Kind: "error", Error: fmt.Sprintf(format, args...)})
}

// serve runs the session's commands until quit or the end of the connection.
func (s *debugSession) serve() {
	var last *DebugState // the state of the last execution when it ended
	for c := range s.cmds {
		switch c.Cmd {
		case "explore":
			s.explore(c)
		case "run":
			for {
				st, restart, quit := s.run(c)
				if quit {
					return
				}
				if restart == nil {
					last = st
					s.reply(&DebugReply{Kind: "ended", State: st})
					break
				}
				c = *restart
			}
		case "step", "continue":
			if last == nil {
				s.errorf("%s: no execution", c.Cmd)
				continue
			}
			st := *last
			st.Trace, st.TraceFrom = nil, 0
			s.reply(&DebugReply{Kind: "ended", State: &st})
		case "quit":
			return
		default:
			s.errorf("unknown command %q", c.Cmd)
		}
	}
}

// explore explores the body until the first bug, streaming progress.
func (s *debugSession) explore(c DebugCommand) {
	name := c.Strategy
	if name == "" {
		name = DefaultStrategy
	}
	seed := c.Seed
	if seed == 0 {
		seed = 1
	}
	strat, err := strategy.New(name, c.Params, seed)
	if err != nil {
		s.errorf("explore: %v", err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.cmu.Lock()
	s.cancel = cancel
	s.cmu.Unlock()
	defer func() {
		s.cmu.Lock()
		s.cancel = nil
		s.cmu.Unlock()
	}()
	seen := make(map[uint64]bool)
	start := time.Now()
	last := start
	var file *schedule.File
	cfg, err := c.config(s.t.Name())
	if err != nil {
		s.errorf("explore: %v", err)
		return
	}
	cfg.Strategy, cfg.Schedules, cfg.Time, cfg.Context = strat, c.Schedules, c.Time, ctx
	cfg.OnExecution = func(n int, r *engine.Result) {
		seen[r.Fingerprint] = true
		if r.Bug != nil && file == nil {
			file = engine.NewScheduleFile(r, s.info, strat, n)
		}
		if now := time.Now(); now.Sub(last) >= 200*time.Millisecond {
			last = now
			s.reply(&DebugReply{Kind: "progress", Progress: &DebugProgress{Schedules: n, Interleavings: len(seen), Elapsed: now.Sub(start).Seconds()}})
		}
	}
	rep := engine.Explore(s.body, cfg)
	x := &DebugExplored{
		DebugProgress: DebugProgress{Schedules: rep.Schedules, Interleavings: rep.Interleavings, Elapsed: rep.Elapsed.Seconds()},
		Stopped:       rep.Stopped, Exhausted: rep.Exhausted, Strategy: name,
	}
	for _, r := range rep.Races {
		x.Races = append(x.Races, r.String())
	}
	if rep.Err != nil {
		x.Error = rep.Err.Error()
	}
	if rep.Stopped == "limitation" && len(rep.Limitations) > 0 {
		x.Error = rep.Limitations[len(rep.Limitations)-1].Message
	}
	r := &DebugReply{Kind: "explored", Explored: x}
	if rep.First != nil && file != nil {
		x.Bug = debugBug(rep.First.Bug)
		path, err := saveSchedule(c.Save, file)
		if err != nil {
			x.Error = err.Error()
		}
		file.Path = path
		x.File = file
	}
	s.reply(r)
}

func debugBug(b *engine.Bug) *DebugBug {
	if b == nil {
		return nil
	}
	return &DebugBug{Kind: string(b.Kind), Message: b.Message, Pos: b.Pos, Step: b.Step, G: int(b.G), Logs: b.Logs}
}

// errRestart ends an execution that the adapter replaced by another (a step back, a restart).
var errRestart = errors.New("debug session: execution replaced")

// run runs one execution as c says. It returns the final state, or the command that
// replaced the execution, or quit.
func (s *debugSession) run(c DebugCommand) (st *DebugState, restart *DebugCommand, quit bool) {
	// A pause that arrived after the previous execution's last step is stale.
	s.pauseReq.Store(false)
	if c.SameSteps {
		c.Steps = s.steps
	}
	s.steps = c.Steps
	d := &debugStrategy{s: s, plan: c.Steps, following: true, exceptionAt: c.ExceptionAt}
	if c.Then != "" {
		name, params, err := ParseStrategy(c.Then)
		if err == nil {
			d.then, err = strategy.New(name, params, max(c.Seed, 1))
		}
		if err != nil {
			return &DebugState{Ended: true, Reason: "end", Next: -1, Err: fmt.Sprintf("then: %v", err)}, nil, false
		}
	}
	d.setBreakpoints(c.Breakpoints)
	if c.Stop >= 0 {
		d.mode, d.stopAt = "step", c.Stop
	} else {
		d.mode, d.from = "continue", -1
	}
	s.strat = d
	cfg, err := c.config(s.t.Name())
	if err != nil {
		return &DebugState{Ended: true, Reason: "end", Next: -1, Err: err.Error()}, nil, false
	}
	if cfg.MaxSteps == 0 {
		cfg.MaxSteps = max(engine.DefaultMaxSteps, 2*len(c.Steps))
	}
	// A paused execution makes no progress for as long as the developer looks at it.
	cfg.Watchdog = 365 * 24 * time.Hour
	r := engine.Run(s.body, d, cfg)
	switch {
	case d.quit:
		return nil, nil, true
	case d.restart != nil:
		return nil, d.restart, false
	}
	st = &DebugState{Step: r.Steps, Ended: true, Reason: "end", Next: -1, Following: d.following, Diverged: d.diverged, TraceFrom: d.reported}
	if d.reported <= len(r.Schedule) {
		st.Trace = r.Schedule[d.reported:]
	}
	if r.Err != nil {
		st.Err = r.Err.Error()
	}
	if r.Limitation != nil {
		st.Err = r.Limitation.Message
	}
	st.Bug = debugBug(r.Bug)
	for _, x := range r.Races {
		st.Races = append(st.Races, x.String())
	}
	if r.Bug != nil {
		for _, g := range r.Bug.Goroutines {
			st.Goroutines = append(st.Goroutines, DebugGoroutine{
				ID: int(g.ID), Parent: int(g.Parent), Created: g.Created, Status: g.Status,
				Op: g.Pending.Kind.String(), Pos: g.Pending.Pos, Frames: userFrames(g.Stack),
			})
		}
	} else {
		for i := 0; i < r.Goroutines; i++ {
			st.Goroutines = append(st.Goroutines, DebugGoroutine{ID: i, Parent: -1, Status: "done"})
		}
	}
	if !d.following && r.Err == nil && r.Limitation == nil {
		// The execution left the schedule it was given (manual scheduling): keep it.
		f := engine.NewScheduleFile(r, s.info, d, 1)
		f.Points, f.RacyPoints = c.Points, c.RacyPoints
		if path, err := saveSchedule(c.Save, f); err == nil {
			st.Saved = path
		} else {
			st.Err = err.Error()
		}
	}
	return st, nil, false
}

// debugStrategy is the strategy of a debugged execution: it follows its plan (the schedule
// being replayed) and pauses for the adapter's commands; once it left the plan, the
// execution goes on under the then strategy, or without preemption (the last goroutine while
// it is enabled, else the first enabled one), unless the developer schedules by hand.
type debugStrategy struct {
	s           *debugSession
	then        engine.Strategy
	thenBegun   bool
	plan        []schedule.Step
	next        int // index in plan of the next decision
	following   bool
	diverged    string
	exceptionAt int

	mode        string // "step" or "continue"
	stopAt      int    // step: pause when this many steps were executed
	from        int    // continue: the step it continued from (no breakpoint stop there)
	breakpoints map[string]bool

	trace    []schedule.Step
	reported int // trace entries already sent
	// lockedAt is where each mutex was last locked (by its address).
	lockedAt map[uintptr]string

	restart *DebugCommand
	quit    bool
}

func (d *debugStrategy) setBreakpoints(bps []string) {
	d.breakpoints = make(map[string]bool, len(bps))
	for _, b := range bps {
		d.breakpoints[b] = true
	}
}

func (d *debugStrategy) Name() string { return "debug" }

func (d *debugStrategy) Params() map[string]string {
	return map[string]string{"followed": strconv.Itoa(d.next)}
}

func (d *debugStrategy) Begin() bool {
	if d.then != nil {
		d.thenBegun = d.then.Begin()
	}
	return true
}

func (d *debugStrategy) End(r *engine.Result) {
	if d.thenBegun {
		d.then.End(r)
	}
}

// Err is why the strategy stopped an execution.
func (d *debugStrategy) Err() error { return errRestart }

// leave records that the execution no longer follows its plan.
func (d *debugStrategy) leave(why string) {
	if d.following {
		d.following = false
		d.diverged = why
	}
}

// planned returns the goroutine the plan runs at this decision, or NoGoroutine.
func (d *debugStrategy) planned(dec *engine.Decision) engine.GID {
	if !d.following {
		return engine.NoGoroutine
	}
	if d.next >= len(d.plan) {
		d.leave("")
		return engine.NoGoroutine
	}
	st := d.plan[d.next]
	g := engine.GID(st.G)
	if st.Kind != schedule.Run || !dec.IsEnabled(g) {
		d.leave(fmt.Sprintf("step %d: the schedule runs %s, but %v is not enabled", dec.Step, st, g))
		return engine.NoGoroutine
	}
	if p := dec.Pending(g); (st.Op != "" && st.Op != p.Kind.String()) || (st.Pos != "" && st.Pos != p.Pos) {
		d.leave(fmt.Sprintf("step %d: the schedule runs %s, but %v's next operation is %s", dec.Step, st, g, p))
		return engine.NoGoroutine
	}
	return g
}

// fallback picks the step once the plan is left: the then strategy's choice, or no
// preemption.
func (d *debugStrategy) fallback(dec *engine.Decision) engine.GID {
	if d.thenBegun {
		if g := d.then.Pick(dec); dec.IsEnabled(g) {
			return g
		}
	}
	if dec.LastEnabled {
		return dec.Last
	}
	return dec.Enabled[0]
}

// Pick follows the plan and pauses where the adapter asked.
func (d *debugStrategy) Pick(dec *engine.Decision) engine.GID {
	n := dec.Step - 1
	next := d.planned(dec)
	fromPlan := next >= 0
	if !fromPlan {
		next = d.fallback(dec)
	}
	reason := ""
	switch {
	case d.s.pauseReq.Swap(false):
		reason = "pause"
	case d.mode == "step" && n >= d.stopAt:
		reason = "step"
	case d.mode == "continue" && n > d.from && d.following && n == d.exceptionAt:
		reason = "exception"
	case d.mode == "continue" && n > d.from && d.breakpoints[lineOf(dec.Pending(next).Pos)]:
		reason = "breakpoint"
	}
	send := true
	for reason != "" {
		if send {
			d.s.reply(&DebugReply{Kind: "paused", State: d.state(dec, n, reason, next)})
		}
		send = true
		c, ok := <-d.s.cmds
		if !ok {
			d.quit = true
			return engine.NoGoroutine
		}
		switch c.Cmd {
		case "step":
			if c.G >= 0 {
				g := engine.GID(c.G)
				if !dec.IsEnabled(g) {
					d.s.errorf("G%d is not enabled: it is %s", c.G, dec.Goroutine(g).Status)
					send = false
					continue
				}
				if g != next {
					d.leave("")
					fromPlan = false
					next = g
				}
			}
			d.mode, d.stopAt, reason = "step", n+1, ""
		case "continue":
			d.setBreakpoints(c.Breakpoints)
			d.mode, d.from, reason = "continue", n, ""
		case "run":
			d.restart = &c
			return engine.NoGoroutine
		case "quit":
			d.quit = true
			return engine.NoGoroutine
		default:
			d.s.errorf("%s: not while an execution is paused", c.Cmd)
			send = false
		}
	}
	if fromPlan {
		d.next++
		// A data choice recorded right after this step is taken by Choose.
	}
	p := dec.Pending(next)
	d.trace = append(d.trace, schedule.Step{Kind: schedule.Run, G: int32(next), Op: p.Kind.String(), Pos: p.Pos})
	if p.Kind == engine.OpLock || p.Kind == engine.OpTryLock {
		if d.lockedAt == nil {
			d.lockedAt = make(map[uintptr]string)
		}
		d.lockedAt[p.Obj] = p.Pos
	}
	return next
}

// Choose takes the plan's alternative while following it, else the then strategy's, or the
// first.
func (d *debugStrategy) Choose(c *engine.Choice) int {
	k := 0
	if !d.following && d.thenBegun {
		if x := d.then.Choose(c); x >= 0 && x < c.N {
			k = x
		}
	}
	if d.following && d.next < len(d.plan) {
		st := d.plan[d.next]
		if st.Kind == schedule.Choice && engine.GID(st.G) == c.G && int(st.N) == c.N && int(st.Value) < c.N {
			k = int(st.Value)
			d.next++
		} else {
			d.leave(fmt.Sprintf("step %d: the schedule has %s, but %v chooses among %d alternatives (%s)", c.Step, st, c.G, c.N, c.Op))
		}
	}
	d.trace = append(d.trace, schedule.Step{Kind: schedule.Choice, G: int32(c.G), Value: int32(k), N: int32(c.N), Op: c.Op.Kind.String(), Pos: c.Op.Pos})
	return k
}

// lineOf strips the column of a position: "f.go:12:3" → "f.go:12".
func lineOf(pos string) string {
	if i := strings.LastIndexByte(pos, ':'); i > 0 {
		if _, err := strconv.Atoi(pos[i+1:]); err == nil {
			if j := strings.LastIndexByte(pos[:i], ':'); j > 0 {
				return pos[:i]
			}
		}
	}
	return pos
}

// state describes the paused execution.
func (d *debugStrategy) state(dec *engine.Decision, n int, reason string, next engine.GID) *DebugState {
	st := &DebugState{Step: n, Reason: reason, Next: int(next), Following: d.following, Diverged: d.diverged, TraceFrom: d.reported}
	st.Trace = append([]schedule.Step(nil), d.trace[d.reported:]...)
	d.reported = len(d.trace)
	stacks := goroutineStacks()
	for i := 0; i < dec.Goroutines; i++ {
		v := dec.Goroutine(engine.GID(i))
		g := DebugGoroutine{ID: i, Parent: int(v.Parent), Created: v.Created, Status: v.Status}
		if v.Status != "done" {
			g.Op, g.Pos = v.Pending.Kind.String(), v.Pending.Pos
			if s, ok := stacks[v.Handle]; ok {
				g.Goid, g.Frames = s.goid, s.frames
			}
		}
		for _, h := range v.Holds {
			held := fmt.Sprintf("%s %#x", h.Kind, h.Addr)
			if pos := d.lockedAt[h.Addr]; pos != "" {
				held += " locked at " + pos
			}
			g.Holds = append(g.Holds, held)
		}
		for _, w := range v.Waits {
			c := DebugChan{Addr: fmt.Sprintf("%#x", w.Addr), Send: w.Send, Cap: w.Cap, Len: w.Len, Closed: w.Closed}
			for _, x := range w.Values {
				c.Values = append(c.Values, formatValue(reflect.ValueOf(x), 3))
			}
			for _, s := range w.Senders {
				c.Senders = append(c.Senders, int(s))
			}
			for _, r := range w.Receivers {
				c.Receivers = append(c.Receivers, int(r))
			}
			g.Waits = append(g.Waits, c)
		}
		g.Clock = dec.Clock(engine.GID(i))
		st.Goroutines = append(st.Goroutines, g)
	}
	return st
}

// goroutineStack is one goroutine of a traceback.
type goroutineStack struct {
	goid   int64
	frames []engine.Frame
}

// engineFrame is the prefix of the engine's frames whose second argument is the engine's
// record of the goroutine ((*Exec).wait(e, g), (*Exec).yield(e, g), ...).
const engineFrame = "github.com/interleave-dev/interleave/engine.(*Exec)."

// goroutineStacks takes a traceback of every goroutine and returns the user frames of the
// engine's goroutines, by the address of their engine record (GoroutineView.Handle).
func goroutineStacks() map[uintptr]goroutineStack {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	return parseStacks(string(buf))
}

// parseStacks parses a traceback of every goroutine (runtime.Stack(buf, true)).
func parseStacks(text string) map[uintptr]goroutineStack {
	out := make(map[uintptr]goroutineStack)
	for _, block := range strings.Split(text, "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		if len(lines) == 0 || !strings.HasPrefix(lines[0], "goroutine ") {
			continue
		}
		f := strings.Fields(lines[0])
		goid, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			continue
		}
		var handle uintptr
		var frames []engine.Frame
		fn, args := "", ""
		for _, l := range lines[1:] {
			switch {
			case strings.HasPrefix(l, "created by "):
				fn = ""
			case strings.HasPrefix(l, "\t"):
				// The location of the function on the line before.
				if fn == "" {
					continue
				}
				loc := strings.TrimSpace(l)
				if j := strings.LastIndex(loc, " +0x"); j > 0 {
					loc = loc[:j]
				}
				file, line := loc, 0
				if j := strings.LastIndexByte(loc, ':'); j > 0 {
					file = loc[:j]
					line, _ = strconv.Atoi(loc[j+1:])
				}
				if handle == 0 && strings.HasPrefix(fn, engineFrame) {
					handle = handleArg(args)
				}
				if !hiddenDebugFrame(fn) {
					frames = append(frames, engine.Frame{Func: strings.Replace(fn, ".__ilTest", ".Test", 1), File: file, Line: line})
				}
				fn = ""
			case strings.HasPrefix(l, "..."):
				fn = "" // "...additional frames elided..."
			default:
				fn, args = l, ""
				if j := strings.LastIndexByte(l, '('); j > 0 {
					fn, args = l[:j], l[j+1:]
				}
			}
		}
		if handle != 0 {
			out[handle] = goroutineStack{goid: goid, frames: frames}
		}
	}
	return out
}

// handleArg returns the second argument of a traceback's argument list ("0xc0001, 0xc0002)"),
// the engine's record of the goroutine, or 0.
func handleArg(args string) uintptr {
	a := strings.Split(strings.TrimSuffix(args, ")"), ", ")
	if len(a) < 2 {
		return 0
	}
	v, err := strconv.ParseUint(strings.TrimSuffix(a[1], "?"), 0, 64)
	if err != nil {
		return 0
	}
	return uintptr(v)
}

// hiddenDebugFrame reports whether a frame belongs to the machinery (the engine, this
// package, the runtime, testing) rather than the program.
func hiddenDebugFrame(fn string) bool {
	for _, p := range []string{"github.com/interleave-dev/interleave.", "github.com/interleave-dev/interleave/engine", "runtime.", "testing.", "sync.", "reflect."} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

func userFrames(fs []engine.Frame) []engine.Frame {
	var out []engine.Frame
	for _, f := range fs {
		if !hiddenDebugFrame(f.Func) {
			f.Func = strings.Replace(f.Func, ".__ilTest", ".Test", 1)
			out = append(out, f)
		}
	}
	return out
}

// formatValue formats a value without calling its methods (a String method of instrumented
// code would reach scheduling points from inside the scheduler).
func formatValue(v reflect.Value, depth int) string {
	if !v.IsValid() {
		return "nil"
	}
	switch v.Kind() {
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Complex64, reflect.Complex128:
		return fmt.Sprint(v.Complex())
	case reflect.String:
		return strconv.Quote(v.String())
	case reflect.Pointer, reflect.Chan, reflect.Func, reflect.UnsafePointer, reflect.Map:
		if v.IsNil() {
			return "nil"
		}
		return fmt.Sprintf("%s(%#x)", v.Type(), v.Pointer())
	case reflect.Interface:
		if v.IsNil() {
			return "nil"
		}
		return formatValue(v.Elem(), depth)
	}
	if depth == 0 {
		return v.Type().String() + "{…}"
	}
	var parts []string
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			parts = append(parts, v.Type().Field(i).Name+": "+formatValue(v.Field(i), depth-1))
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return "nil"
		}
		for i := 0; i < v.Len() && i < 8; i++ {
			parts = append(parts, formatValue(v.Index(i), depth-1))
		}
		if v.Len() > 8 {
			parts = append(parts, fmt.Sprintf("… %d more", v.Len()-8))
		}
	}
	return v.Type().String() + "{" + strings.Join(parts, ", ") + "}"
}
