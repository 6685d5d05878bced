package control

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// debugStrategy is the strategy of a debugged execution: it follows its plan (the schedule
// being replayed) and pauses for the adapter's commands; once it left the plan, the
// execution goes on under the then strategy, or without preemption (the last goroutine while
// it is enabled, else the first enabled one), unless the developer schedules by hand.
type debugStrategy struct {
	s           *session
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
	info     []StepInfo // info[i] says more of trace[i]
	objs     map[uintptr]int
	reported int // trace entries already sent
	// lockedAt is where each mutex was last locked (by its address).
	lockedAt map[uintptr]string
	// starting: the last decision started a goroutine (its pending operation was
	// engine.OpStart), which went on to its first operation in the same step
	// (Decision.Opened); startTrace is that step's index in trace and startPlan in plan (-1:
	// not from the plan). Both are known, and checked, at the next decision.
	starting              bool
	startTrace, startPlan int

	restart *Command
	quit    bool
	// dataSeed is the seed of the execution's math/rand values (engine.DataSeeder).
	dataSeed uint64
}

// DataSeed implements engine.DataSeeder.
func (d *debugStrategy) DataSeed() uint64 { return d.dataSeed }

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
	if p := dec.Pending(g); p.Kind == engine.OpStart && st.Op != "" && st.Op != p.Kind.String() {
		// The step starts g, and the plan records the first operation it then executes:
		// checked at the next decision (started).
	} else if (st.Op != "" && st.Op != p.Kind.String()) || (st.Pos != "" && st.Pos != p.Pos) {
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
	return dec.EnabledAt(0)
}

// Pick follows the plan and pauses where the adapter asked.
func (d *debugStrategy) Pick(dec *engine.Decision) engine.GID {
	n := dec.Step - 1
	if d.starting {
		d.started(dec)
	}
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
			d.s.reply(&Reply{Kind: "paused", State: d.state(dec, n, reason, next)})
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
	if p.Kind == engine.OpStart {
		d.starting, d.startTrace, d.startPlan = true, len(d.trace), -1
		if fromPlan {
			d.startPlan = d.next - 1
		}
	}
	d.trace = append(d.trace, schedule.Step{Kind: schedule.Run, G: int32(next), Op: p.Kind.String(), Pos: p.Pos})
	enabled := make([]int, 0, dec.NumEnabled())
	for i := 0; i < dec.NumEnabled(); i++ {
		enabled = append(enabled, int(dec.EnabledAt(i)))
	}
	d.info = append(d.info, StepInfo{Obj: d.objNumber(p.Obj), Enabled: enabled})
	d.locked(p)
	return next
}

// locked notes where the mutex of a lock step was locked.
func (d *debugStrategy) locked(p engine.Op) {
	if p.Kind == engine.OpLock || p.Kind == engine.OpTryLock {
		if d.lockedAt == nil {
			d.lockedAt = make(map[uintptr]string)
		}
		d.lockedAt[p.Obj] = p.Pos
	}
}

// started completes the record of the previous step, which started a goroutine: the trace
// shows the first operation it executed (the start alone when it blocked at it or returned
// before any), as the schedule of an exploration does, and the plan, when the step came from
// it, is checked against that operation.
func (d *debugStrategy) started(dec *engine.Decision) {
	d.starting = false
	st := &d.trace[d.startTrace]
	op := dec.Opened()
	if op.Kind != engine.OpNone {
		st.Op, st.Pos = op.Kind.String(), op.Pos
		d.info[d.startTrace].Obj = d.objNumber(op.Obj)
		d.locked(op)
	}
	if d.startPlan < 0 {
		return
	}
	want := d.plan[d.startPlan]
	if want.Op == "" || want.Op == engine.OpStart.String() || op.Kind != engine.OpNone && want.Op == op.Kind.String() && (want.Pos == "" || want.Pos == op.Pos) {
		return
	}
	got := "it did not execute it (blocked at it, or finished)"
	if op.Kind != engine.OpNone {
		got = "its first operation is " + op.String()
	}
	d.leave(fmt.Sprintf("step %d: the schedule runs %s, but %s", dec.Step-1, want, got))
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
	d.info = append(d.info, StepInfo{Obj: d.objNumber(c.Op.Obj)})
	return k
}

// objNumber numbers the objects in the order the execution meets them (StepInfo.Obj).
func (d *debugStrategy) objNumber(obj uintptr) int {
	if obj == 0 {
		return 0
	}
	if d.objs == nil {
		d.objs = make(map[uintptr]int)
	}
	n, ok := d.objs[obj]
	if !ok {
		n = len(d.objs) + 1
		d.objs[obj] = n
	}
	return n
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
func (d *debugStrategy) state(dec *engine.Decision, n int, reason string, next engine.GID) *State {
	st := &State{Step: n, Reason: reason, Next: int(next), Following: d.following, Diverged: d.diverged, TraceFrom: d.reported}
	st.Trace = append([]schedule.Step(nil), d.trace[d.reported:]...)
	st.Info = append([]StepInfo(nil), d.info[d.reported:]...)
	d.reported = len(d.trace)
	stacks := goroutineStacks()
	for i := 0; i < dec.Goroutines; i++ {
		v := dec.Goroutine(engine.GID(i))
		g := Goroutine{ID: i, Parent: int(v.Parent), Created: v.Created, Status: v.Status}
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
			c := Chan{Addr: fmt.Sprintf("%#x", w.Addr), Send: w.Send, Cap: w.Cap, Len: w.Len, Closed: w.Closed}
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
