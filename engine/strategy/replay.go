package strategy

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// ErrDiverged is wrapped by every error of a replay that could not follow its schedule.
var ErrDiverged = errors.New("replay diverged")

// DivergenceError says where and how an execution left the schedule it replayed.
type DivergenceError struct {
	// Step is the step at which the execution diverged: the step being chosen, or for a
	// data choice the step during which it is made, or the last step when the execution
	// ended early.
	Step int
	// Decision is the index in the schedule of the decision that could not be followed
	// (len(steps) when the execution went on past the schedule's end).
	Decision int
	// Want says what the schedule expected, Got what the execution did instead.
	Want, Got string
	// Now says what the execution does at that step, in the words of a report of changed
	// source: "G3 now runs lock at x.go:14", "G3 now is blocked at ...".
	Now string
}

// Error says "replay diverged at step N: <what the schedule expected>, but <what happened>".
func (e *DivergenceError) Error() string {
	return fmt.Sprintf("replay diverged at step %d: %s, but %s", e.Step, e.Want, e.Got)
}

// Is makes errors.Is(err, ErrDiverged) true.
func (e *DivergenceError) Is(target error) bool { return target == ErrDiverged }

// Replay is the strategy that re-executes a recorded schedule: it takes exactly the recorded
// goroutine at every step and the recorded alternative at every data choice, and runs one
// execution (Begin returns true once).
//
// It checks every decision against the execution: the recorded goroutine must exist, be
// enabled and be about to execute the recorded operation (kind and position, when the
// schedule has them); a data choice must come where the schedule has one, by the same
// goroutine and operation, with the same number of alternatives; and the execution must
// neither need more decisions than the schedule has nor end before using them all. At the
// first difference the replay stops the execution: the engine puts Err, a *DivergenceError,
// into Result.Err. The early end is found in End, which then sets Result.Err itself.
//
// With ReplayThen, the execution goes on under another strategy once the recorded decisions
// are used up (the debugger uses it to schedule by hand from a recorded point).
type Replay struct {
	steps      []schedule.Step
	then       engine.Strategy
	thenBegun  bool
	origName   string
	origParams map[string]string
	dataSeed   uint64 // the recorded execution's data seed (engine.DataSeeder)

	begun bool
	next  int // index in steps of the next decision
	// opening is the index in steps of the last decision when it started a goroutine whose
	// first operation the schedule records (-1: none): checked at the next decision.
	opening   int
	handed    bool // the continuation has taken over
	err       *DivergenceError
	lastSteps int
}

// ReplayOption configures a Replay.
type ReplayOption func(*Replay)

// replayData gives the replayed execution the data seed it was recorded with.
func replayData(seed uint64) ReplayOption {
	return func(r *Replay) { r.dataSeed = seed }
}

// ReplayThen continues the execution with s once the recorded decisions are used up, instead
// of stopping with a divergence. s.Begin is called when the replay begins and s.End when it
// ends; s only sees the decisions after the recorded ones.
func ReplayThen(s engine.Strategy) ReplayOption {
	return func(r *Replay) { r.then = s }
}

// ReplayOf records the strategy that produced the schedule, for Name and Params.
func ReplayOf(name string, params map[string]string) ReplayOption {
	return func(r *Replay) {
		r.origName = name
		r.origParams = maps.Clone(params)
	}
}

// NewReplay returns a strategy that replays steps, the decisions of one execution (as in
// engine.Result.Schedule or schedule.File.Steps). The slice is not modified.
func NewReplay(steps []schedule.Step, opts ...ReplayOption) *Replay {
	r := &Replay{steps: steps, opening: -1}
	for _, o := range opts {
		o(r)
	}
	return r
}

// NewReplayFile returns a strategy that replays the schedule of f, naming f's strategy as
// the original one. Check f against the test first (f.Check).
func NewReplayFile(f *schedule.File, opts ...ReplayOption) *Replay {
	opts = append([]ReplayOption{ReplayOf(f.Strategy.Name, f.Strategy.Params), replayData(f.DataSeed)}, opts...)
	return NewReplay(f.Steps, opts...)
}

// Name is "replay".
func (r *Replay) Name() string { return "replay" }

// Params describe the replay: the number of recorded decisions, the original strategy
// ("of") and its parameters ("of.seed", ...), and the continuation ("then", "then.seed", ...).
func (r *Replay) Params() map[string]string {
	p := map[string]string{"decisions": strconv.Itoa(len(r.steps))}
	if r.origName != "" {
		p["of"] = r.origName
	}
	for k, v := range r.origParams {
		p["of."+k] = v
	}
	if r.then != nil {
		p["then"] = r.then.Name()
		for k, v := range r.then.Params() {
			p["then."+k] = v
		}
	}
	return p
}

// Begin starts the one execution of the replay.
func (r *Replay) Begin() bool {
	if r.begun {
		return false
	}
	r.begun = true
	if r.then != nil {
		r.thenBegun = r.then.Begin()
	}
	return true
}

// Err returns the divergence that stopped the execution, if any (or the continuation's error
// once it has taken over and refused to go on).
func (r *Replay) Err() error {
	if r.err != nil {
		return r.err
	}
	if r.handed {
		if a, ok := r.then.(engine.Aborter); ok {
			return a.Err()
		}
	}
	return nil
}

// Diverged returns the divergence found, nil if the execution followed the schedule.
func (r *Replay) Diverged() *DivergenceError { return r.err }

// Replayed returns how many of the recorded decisions were followed.
func (r *Replay) Replayed() int { return r.next }

// Pick returns the recorded goroutine of the step.
func (r *Replay) Pick(d *engine.Decision) engine.GID {
	r.lastSteps = d.Step
	if r.err != nil {
		return engine.NoGoroutine
	}
	if r.opening >= 0 && !r.opened(d) {
		return engine.NoGoroutine
	}
	if r.next >= len(r.steps) {
		if r.then != nil && r.thenBegun {
			r.handed = true
			return r.then.Pick(d)
		}
		r.diverge(d.Step, fmt.Sprintf("the schedule ended after step %d", d.Step-1),
			"the execution goes on; enabled: "+replayEnabled(d), "the execution now goes on past the schedule's end")
		return engine.NoGoroutine
	}
	s := r.steps[r.next]
	if s.Kind == schedule.Choice {
		r.diverge(d.Step, fmt.Sprintf("the schedule makes a data choice here (%s)", s),
			"the execution schedules a goroutine; enabled: "+replayEnabled(d), "the execution now schedules a goroutine where the schedule has a data choice")
		return engine.NoGoroutine
	}
	g := engine.GID(s.G)
	want := fmt.Sprintf("the schedule runs %s", replayStep(s))
	if int(g) >= d.Goroutines {
		r.diverge(d.Step, want, fmt.Sprintf("%v does not exist: the execution has created %d goroutine(s); enabled: %s",
			g, d.Goroutines, replayEnabled(d)), fmt.Sprintf("%v does not exist now (the execution has created %d goroutine(s))", g, d.Goroutines))
		return engine.NoGoroutine
	}
	p := d.Pending(g)
	if !d.IsEnabled(g) {
		state := "is blocked"
		switch {
		case p == engine.Op{}:
			state = "has finished"
		case !replaySameOp(s, p):
			state = fmt.Sprintf("is blocked at %s", p)
		}
		r.diverge(d.Step, want, fmt.Sprintf("%v %s; enabled: %s", g, state, replayEnabled(d)), fmt.Sprintf("%v now %s", g, state))
		return engine.NoGoroutine
	}
	if p.Kind == engine.OpStart && s.Op != "" && s.Op != p.Kind.String() {
		// The step starts g and executes its first operation, which the schedule records
		// (engine.Decision.Opened): checked once it has run.
		r.opening = r.next
	} else if !replaySameOp(s, p) {
		r.diverge(d.Step, want, fmt.Sprintf("%v's next operation is %s", g, p), fmt.Sprintf("%v now runs %s", g, p))
		return engine.NoGoroutine
	}
	r.next++
	return g
}

// opened checks the previous decision, which started a goroutine, against the first
// operation the schedule records for it: it reports whether the goroutine executed that
// operation in the step, and otherwise records the divergence.
func (r *Replay) opened(d *engine.Decision) bool {
	s := r.steps[r.opening]
	r.opening = -1
	g := engine.GID(s.G)
	op := d.Opened()
	if op.Kind != engine.OpNone && replaySameOp(s, op) {
		return true
	}
	var got, now string
	switch p := d.Pending(g); {
	case op.Kind != engine.OpNone:
		got, now = fmt.Sprintf("%v's first operation is %s", g, op), fmt.Sprintf("%v now runs %s", g, op)
	case p == engine.Op{}:
		got, now = fmt.Sprintf("%v has finished", g), fmt.Sprintf("%v now finishes", g)
	case replaySameOp(s, p):
		got, now = fmt.Sprintf("%v is blocked", g), fmt.Sprintf("%v now is blocked", g)
	default:
		got, now = fmt.Sprintf("%v is blocked at %s", g, p), fmt.Sprintf("%v now is blocked at %s", g, p)
	}
	r.diverge(d.Step-1, fmt.Sprintf("the schedule runs %s", replayStep(s)), got+"; enabled: "+replayEnabled(d), now)
	r.err.Decision--
	return false
}

// Choose returns the recorded alternative of the data choice.
func (r *Replay) Choose(c *engine.Choice) int {
	if r.err != nil {
		return -1
	}
	got := fmt.Sprintf("%v chooses among %d alternatives (%s)", c.G, c.N, c.Op)
	if r.next >= len(r.steps) {
		if r.then != nil && r.thenBegun {
			r.handed = true
			return r.then.Choose(c)
		}
		r.diverge(c.Step, "the schedule has no more decisions", "the execution makes a data choice: "+got, "the execution now makes a data choice past the schedule's end: "+got)
		return -1
	}
	s := r.steps[r.next]
	switch {
	case s.Kind != schedule.Choice:
		r.diverge(c.Step, "the schedule runs "+replayStep(s)+" next", "the execution makes a data choice: "+got, "the execution now makes a data choice: "+got)
		return -1
	case engine.GID(s.G) != c.G || !replaySameOp(s, c.Op):
		r.diverge(c.Step, "the schedule has a "+replayStep(s), "this data choice is "+got, "the data choice now is "+got)
		return -1
	case int(s.N) != c.N || int(s.Value) >= c.N || s.Value < 0:
		r.diverge(c.Step, fmt.Sprintf("the schedule takes alternative %d of %d (%s)", s.Value, s.N, replayOp(s)),
			fmt.Sprintf("the execution offers %d alternatives", c.N), fmt.Sprintf("%v's %s now offers %d alternatives", c.G, c.Op, c.N))
		return -1
	}
	r.next++
	return int(s.Value)
}

// End checks that the execution used every recorded decision. If it did not, and nothing
// else stopped it, End records the divergence in res.Err.
func (r *Replay) End(res *engine.Result) {
	if r.then != nil && r.thenBegun {
		r.then.End(res)
	}
	if r.err != nil || r.next >= len(r.steps) || res.Err != nil || res.Limitation != nil {
		return
	}
	how := "passed"
	if res.Bug != nil {
		how = fmt.Sprintf("found a %s at %s", res.Bug.Kind, res.Bug.Pos)
	}
	r.diverge(res.Steps, fmt.Sprintf("the schedule has %d more decision(s), the next %s", len(r.steps)-r.next, replayStep(r.steps[r.next])),
		fmt.Sprintf("the execution ended after step %d (it %s)", res.Steps, how),
		fmt.Sprintf("the execution now ends after step %d (it %s)", res.Steps, how))
	res.Err = r.err
}

// diverge records a divergence: what the schedule expected, and what happened instead.
func (r *Replay) diverge(step int, want, got, now string) {
	r.err = &DivergenceError{Step: step, Decision: r.next, Want: want, Got: got, Now: now}
}

// replaySameOp reports whether op is the operation of the recorded decision s: same kind and
// position, as far as s records them.
func replaySameOp(s schedule.Step, op engine.Op) bool {
	return (s.Op == "" || s.Op == op.Kind.String()) && (s.Pos == "" || s.Pos == op.Pos)
}

// replayStep describes a recorded decision: "G3 (lock at bank.go:42)", or for a data
// choice "alternative 1 of 2 of G3 (select at s.go:7)".
func replayStep(s schedule.Step) string {
	if s.Kind == schedule.Choice {
		return fmt.Sprintf("alternative %d of %d of G%d (%s)", s.Value, s.N, s.G, replayOp(s))
	}
	return fmt.Sprintf("G%d (%s)", s.G, replayOp(s))
}

func replayOp(s schedule.Step) string {
	op := s.Op
	if op == "" {
		op = "any operation"
	}
	if s.Pos != "" {
		op += " at " + s.Pos
	}
	return op
}

// replayEnabled lists the enabled goroutines and their pending operations.
func replayEnabled(d *engine.Decision) string {
	const max = 8
	var b strings.Builder
	for i, g := range d.Enabled() {
		if i == max {
			fmt.Fprintf(&b, ", and %d more", d.NumEnabled()-max)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%v (%s)", g, d.Pending(g))
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}
