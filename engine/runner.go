// The runner: one Exec reused from execution to execution, prepared, run, waited for (or
// abandoned when it stalls), reaped and turned into a Result; and the racy scheduling points.

package engine

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"time"

	"github.com/interleave-dev/interleave/engine/schedule"
)

// runner runs executions, reusing one Exec (and its goroutines' handoff channels) as long as
// no execution is abandoned.
type runner struct {
	cfg Config
	e   *Exec
	// numBase is the process's goroutines when the exploration began (NumGoroutine).
	numBase int
	racy    map[Pos]bool
	// racyList is racy's positions, sorted; replaced, never modified, when they grow.
	racyList []Pos
	// capture asks the race detector for the stacks of these accesses (raceStacks).
	capture map[int32][]*[]Frame
	// natural is the most steps of an execution that ended before its step bound: the
	// test's natural length, from which the adaptive bound's limit is derived (stepBounds).
	natural int
}

func newRunner(cfg Config) runner {
	r := runner{cfg: cfg, e: newExec(), numBase: runtime.NumGoroutine() - int(orphanCount.Load())}
	if cfg.Points == PointsRacy {
		r.racy = make(map[Pos]bool, len(cfg.RacyPoints))
		for _, p := range cfg.RacyPoints {
			r.racy[p] = true
		}
		r.racyList = slices.Sorted(maps.Keys(r.racy))
	}
	return r
}

// growRacy makes the accesses of races first seen in an execution scheduling points of the
// executions that follow, with Config.Points racy. SCTBench's detection phase (seed 004, §5)
// finds the racy accesses once, before exploring; a race that shows only under interleavings
// the detection phase did not run (its accesses ordered by synchronization in every one of
// them) would never be interleaved. A systematic strategy, whose tree the new points change,
// starts its search over (Restarter). It reports whether the points grew.
func (r *runner) growRacy(fresh []DataRace) bool {
	if !r.makeRacy(r.newRacy(fresh)) {
		return false
	}
	if rs, ok := r.cfg.Strategy.(Restarter); ok {
		rs.Restart()
	}
	return true
}

// newRacy returns the positions of the races' accesses that are not scheduling points yet.
func (r *runner) newRacy(races []DataRace) []Pos {
	var out []Pos
	for _, rc := range races {
		for _, p := range [...]Pos{rc.A.Pos, rc.B.Pos} {
			if !r.racy[p] && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// makeRacy makes the accesses at positions scheduling points, and reports whether any was not.
func (r *runner) makeRacy(positions []Pos) bool {
	grew := false
	for _, p := range positions {
		if !r.racy[p] {
			r.racy[p], grew = true, true
		}
	}
	if grew {
		r.racyList = slices.Sorted(maps.Keys(r.racy))
	}
	return grew
}

// run runs one execution of body in a goroutine of its own and waits for it: Run's way, and the
// race detector's second look (raceStacks); Explore's loop runs the first goroutine itself
// (exploration.runInline).
func (r *runner) run(body func(*T), wantStacks bool) *Result {
	main, t := r.prepare(body)
	e := r.e
	go e.run(main)
	if lim := r.wait(e); lim != nil {
		// Abandoned: everything in e may still be written by the stuck goroutine, so the
		// result holds only the limitation, and e is not reused.
		r.e = newExec()
		return &Result{Limitation: lim}
	}
	return r.collect(t, wantStacks)
}

// prepare makes r's Exec ready to run body, and returns the execution's first goroutine, not
// started, with its T.
func (r *runner) prepare(body func(*T)) (*goroutine, *T) {
	e := r.e
	maxSteps, limit := r.stepBounds()
	restoreState()
	e.reset(r.cfg.Strategy, maxSteps, limit)
	e.numBase = r.numBase
	e.fairSteps = r.cfg.fairSteps()
	if fb, ok := r.cfg.Strategy.(FairBounder); ok && e.fairSteps > 0 {
		if n := fb.FairSteps(); n > 0 {
			e.fairSteps = n
		}
	}
	e.delaysLeft, e.delayMax = r.cfg.sleepDelays()
	e.configure(&r.cfg, r.racy)
	if e.race != nil {
		e.race.capture = r.capture
	}
	t := &T{e: e, name: r.cfg.Name}
	main := e.newGoroutine(func() {
		defer t.finish()
		body(t)
	}, "")
	main.test = t
	e.raceGo(nil, main)
	e.setEnabled(main, true)
	e.cur = main
	active.Store(e)
	return main, t
}

// stepBounds returns the step bound an execution starts with and the limit up to which it may
// grow (adaptive when Config.MaxSteps is 0; a bound given is fixed). The adaptive bound starts
// at DefaultMaxSteps and doubles each time an execution reaches it without the evidence of a
// livelock (Exec.stepBound), up to MaxAdaptiveSteps while no execution has ended by itself
// yet, and then up to AdaptiveFactor times the longest that did (the test's natural length),
// never below DefaultMaxSteps: a short test's bound stays the default, so that goroutines
// taking turns forever cost no more than before, while a long one runs to its end.
func (r *runner) stepBounds() (bound, limit int) {
	switch {
	case r.cfg.MaxSteps != 0:
		return r.cfg.MaxSteps, 0
	case r.natural == 0:
		return DefaultMaxSteps, MaxAdaptiveSteps
	}
	return DefaultMaxSteps, min(MaxAdaptiveSteps, max(DefaultMaxSteps, AdaptiveFactor*r.natural))
}

// collect reaps the goroutines of the execution that ended and returns its result.
func (r *runner) collect(t *T, wantStacks bool) *Result {
	e := r.e
	if t.external != nil {
		e.checkExternal(nil, t)
	}
	var states []GoroutineState
	if e.result.Bug != nil {
		states = e.states()
	}
	e.reap(wantStacks && e.result.Bug != nil)
	for i := range states {
		states[i].Stack = e.gs[i].stack
	}
	if b := e.result.Bug; b != nil && b.G >= 0 && int(b.G) < len(states) && states[b.G].Stack == nil {
		states[b.G].Stack = b.stack
	}
	active.Store(nil)
	t.removeTempDirs()

	if !e.atBound {
		r.natural = max(r.natural, e.steps)
	}
	res := &e.result
	res.Steps = e.steps
	res.Goroutines = len(e.gs)
	res.Choices = len(e.choices)
	res.Skipped = t.skipped && res.Bug == nil
	res.Logs = t.logs
	res.Fingerprint = e.fp.sum(e.trace, len(e.gs))
	res.Races = e.races()
	res.RacyPoints = r.racyList
	res.FairSteps = e.fairSteps
	if n, d := r.cfg.sleepDelays(); n > 0 {
		res.SleepDelays, res.SleepDelayMax = n, time.Duration(d)
	}
	if res.Bug != nil {
		res.Bug.Logs = t.logs
		res.Bug.Goroutines = states
	}
	if r.cfg.Record || res.Bug != nil || res.Err != nil {
		res.Schedule = e.schedule()
	}
	return res
}

// wait waits for the execution to end. It returns the limitation when the watchdog abandoned
// it: the running goroutine went too long without reaching a scheduling point.
func (r *runner) wait(e *Exec) *Limitation {
	wd := r.cfg.Watchdog
	if wd <= 0 {
		wd = DefaultWatchdog
	}
	w := startWatching(e, wd)
	defer stopWatching()
	select {
	case <-e.done:
		return nil
	case <-w.fired:
		return r.abandon(e, time.Duration(w.stalled.Load()))
	}
}

// abandon gives up an execution whose running goroutine is blocked outside the engine's
// control. That goroutine becomes an orphan: it exits when it next reaches the engine. The
// explorer touches nothing the stuck goroutine may still be writing: it only reads what that
// goroutine published atomically, and the execution's parked goroutines are left parked for
// good rather than reaped concurrently with it (the exploration stops at this limitation). The
// execution is not reused.
// A goroutine found running in the program's code (stall.busy) while the stuck one is not
// waiting means a loop without a scheduling point rather than an operation blocked outside the
// engine, and the message says so.
func (r *runner) abandon(e *Exec, wd time.Duration) *Limitation {
	stuck := e.running.Load()
	e.abandoned.Store(true)
	orphans.Store(stuck.gp, true)
	orphanCount.Add(1)
	active.Store(nil)
	stacks := AllStacks()
	noteAbandoned(stacks)
	where := "the test body"
	if stuck.created != "" {
		where = "the goroutine started at " + stuck.created
	}
	why := stallReason(examine(stacks))
	return &Limitation{
		Kind:    "watchdog",
		Message: fmt.Sprintf("%v (%s) did not reach a scheduling point for %v: %s; the execution was abandoned", stuck.id, where, wd, why),
		Pos:     stuck.created,
	}
}

// stallReason says why the stuck goroutine of a stalled execution did not reach a scheduling
// point, from a traceback of every goroutine (examine).
func stallReason(s stall) string {
	waiting := s.state != "" && s.state != "running" && s.state != "runnable"
	switch {
	case s.busy != "" && !waiting:
		// A goroutine running in the program's code while the stuck one is not waiting: the
		// stuck one's own loop, or one it waits for. A stuck goroutine that waits (on a real
		// channel, in a system call) is described by where it waits, whatever else happens
		// to run at the traceback (another test's goroutine writing its output).
		return fmt.Sprintf("it kept running without one (a goroutine is running in %s): a loop or a computation with no instrumented operation in it, such as a busy-wait on a variable of uninstrumented code", s.busy)
	case s.blockedIn != "":
		why := fmt.Sprintf("it is blocked outside the engine's control, in %s (%s) [%s]", s.blockedIn, s.at, s.state)
		if mod := uninstrumentedModule(packageOf(s.blockedIn)); mod != "" {
			return why + fmt.Sprintf(": module %s is not instrumented, and interleave test -instrument %s would control it", mod, mod)
		}
		return why + ": an operation the engine does not control (a real system call, cgo, or a construct the instrumenter reported)"
	}
	return "it is blocked outside the engine's control (an uninstrumented operation, a real system call or lock)"
}

// status is "done", "blocked" or "enabled".
func (g *goroutine) status() string {
	switch {
	case g.done:
		return "done"
	case !g.enabled():
		return "blocked"
	}
	return "enabled"
}

// states describes every goroutine when the execution ended, before reaping.
func (e *Exec) states() []GoroutineState {
	out := make([]GoroutineState, len(e.gs))
	for i, g := range e.gs {
		out[i] = GoroutineState{ID: g.id, Parent: g.parent, Created: g.created, Pending: g.pending, Status: g.status()}
	}
	return out
}

// schedule converts the recorded decisions to their plain-data form.
func (e *Exec) schedule() []schedule.Step {
	out := make([]schedule.Step, len(e.trace))
	for i, s := range e.trace {
		out[i] = schedule.Step{Kind: schedule.Run, G: int32(s.g), Op: s.op().String(), Pos: e.positions.at(s.pos())}
		if s.isChoice() {
			c := e.choices[s.obj]
			out[i].Kind, out[i].Value, out[i].N = schedule.Choice, c.value, c.n
		}
	}
	return out
}
