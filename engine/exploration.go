// Explore's loop: the goroutine that runs it and each execution's first goroutine, the hand-over
// when that goroutine does not come back, the watchdog's abandonment, and what each execution
// adds to the report.

package engine

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// exploration is the state of Explore, whose loop runs in a goroutine of its own: that
// goroutine runs the first goroutine of each execution itself (runInline), so that an
// execution costs neither a goroutine's start nor the two wake-ups of handing it over and
// back (about 4 µs, as much as a thousand scheduling points). When the first goroutine does
// not come back to the loop — it exits with runtime.Goexit (t.FailNow, or being reaped), or is
// still blocked when the execution ends — another goroutine takes the loop on where it was
// (pass: the baton). Explore's caller waits for the end, and handles the watchdog.
type exploration struct {
	body      func(*T)
	cfg       Config
	rep       *Report
	start     time.Time
	seen      map[uint64]struct{}
	r         runner
	races     map[racePair]int
	fixedData bool // an execution drew math/rand values from the fixed seed
	// delayed is the notice of the bugs that needed a delay past a sleep (Config.Sleeps
	// SleepsNotice), clockAhead that of the bugs that came after the virtual clock ran ahead
	// of the work (Bug.ClockAhead).
	delayed, clockAhead bugNotice
	// output decides whether an example's output differing from its comment depends on the
	// schedule (exampleOutput).
	output  exampleOutput
	sharer  PointsSharer
	plateau plateau
	pairs   pairCoverage // measured with Config.Plateau only

	// turn is the execution in flight, its number shifted left by 2, with its state in the
	// low bits (turnPassed, turnEnded, turnAbandoned).
	turn      atomic.Uint64
	pendingT  *T            // the T of the execution in flight
	finished  chan struct{} // closed when the loop is over
	fired     chan *watched // the watchdog's, for every execution
	abandoned chan struct{} // closed once an execution is abandoned
}

// The states of an execution in exploration.turn (0: running).
const (
	turnPassed    = 1 // the loop was passed on to another goroutine
	turnEnded     = 2 // the loop has the execution's result
	turnAbandoned = 3 // the watchdog abandoned it
)

// loop runs the exploration's loop; with resuming, it first finishes the execution turn,
// which was in flight when the loop was passed to it.
func (x *exploration) loop(turn uint64, resuming bool) {
	inRoot, normal := false, false
	defer func() {
		switch {
		case normal:
		case inRoot:
			// The execution's first goroutine, run by this goroutine, exited with
			// runtime.Goexit: unless the loop was passed on already (the execution ended
			// while it was blocked), a new goroutine takes it on.
			if x.turn.CompareAndSwap(turn, turn|turnPassed) {
				go x.loop(turn, true)
			}
		default:
			// runtime.Goexit outside an execution (a callback called t.FailNow).
			x.rep.Stopped, x.rep.Err = "error", fmt.Errorf("engine: the exploration's goroutine exited with runtime.Goexit outside an execution")
			close(x.finished)
		}
	}()
	var res *Result // the last execution's, not yet taken in
	ok := true      // false: the execution was abandoned, and Explore's caller ends the loop
	if resuming {
		res, ok = x.finish(turn|turnPassed, x.r.e, x.pendingT, x.rep.First == nil)
	}
	for ok && (res == nil || !x.after(res)) && !x.before() {
		turn = x.turn.Load()&^3 + 4
		x.turn.Store(turn)
		inRoot = true
		res, ok = x.runInline(turn, x.rep.First == nil)
		inRoot = false
	}
	normal = true
	if ok {
		close(x.finished)
	}
}

// pass passes the loop on to a new goroutine: the execution ended while its first goroutine,
// which the loop's goroutine runs, is blocked (Exec.end). That goroutine is reaped by the new
// one.
func (x *exploration) pass() {
	if t := x.turn.Load() &^ 3; x.turn.CompareAndSwap(t, t|turnPassed) {
		go x.loop(t, true)
	}
}

// runInline runs an execution whose first goroutine is the calling one, and returns its
// result, or false when the execution was abandoned (the caller then stops).
func (x *exploration) runInline(turn uint64, wantStacks bool) (*Result, bool) {
	r := &x.r
	main, t := r.prepare(x.body)
	e := r.e
	e.inline, e.baton = main, x
	x.pendingT = t
	wd := r.cfg.Watchdog
	if wd <= 0 {
		wd = DefaultWatchdog
	}
	startWatchingInto(e, wd, x.fired, turn)
	e.run(main)
	// The first goroutine returned or panicked; the execution may go on in others.
	return x.finish(turn, e, t, wantStacks)
}

// finish waits for execution turn (in state from) to end and returns its result, or false
// when it was abandoned.
func (x *exploration) finish(from uint64, e *Exec, t *T, wantStacks bool) (*Result, bool) {
	select {
	case <-e.done:
	case <-x.abandoned:
		return nil, false
	}
	if !x.turn.CompareAndSwap(from, from&^3|turnEnded) {
		return nil, false // abandoned meanwhile
	}
	stopWatching()
	return x.r.collect(t, wantStacks), true
}

// await waits for the loop to end, abandoning an execution the watchdog reports stalled; it
// reports whether it did.
func (x *exploration) await() (abandoned bool) {
	for {
		select {
		case <-x.finished:
			return false
		case w := <-x.fired:
			t := w.turn
			if !x.turn.CompareAndSwap(t, t|turnAbandoned) && !x.turn.CompareAndSwap(t|turnPassed, t|turnAbandoned) {
				continue // it ended meanwhile
			}
			stopWatching()
			close(x.abandoned)
			lim := x.r.abandon(w.e, time.Duration(w.stalled.Load()))
			x.r.e = newExec()
			x.after(&Result{Limitation: lim})
			return true
		}
	}
}

// before decides whether the exploration stops before another execution, and otherwise
// begins it with the strategy.
func (x *exploration) before() (stop bool) {
	cfg, rep, r := &x.cfg, x.rep, &x.r
	switch {
	case cfg.Schedules > 0 && rep.Schedules >= cfg.Schedules:
		rep.Stopped = "schedules"
		return true
	case cfg.Time > 0 && time.Since(x.start) >= cfg.Time:
		rep.Stopped = "time"
		return true
	case cfg.Context.Err() != nil:
		rep.Stopped = "canceled"
		return true
	}
	elapsed := time.Since(x.start)
	if w, ok := x.plateau.reached(cfg.Plateau, rep.Schedules, cfg.PlateauTime, elapsed); ok {
		rep.Stopped, rep.PlateauWindow = "plateau", w
		rep.PlateauFloor = timedFloor(cfg.Plateau, rep.Schedules, cfg.PlateauTime, elapsed)
		return true
	}
	if p, ok := cfg.Strategy.(Paced); ok && cfg.Time > 0 {
		p.SetExecutionsLeft(ExecutionsLeft(cfg.Time, time.Since(x.start), rep.Schedules, cfg.Schedules))
	}
	begun := cfg.Strategy.Begin()
	if x.sharer != nil && r.makeRacy(x.sharer.AgreedRacyPoints()) {
		rep.RacyPointsGrew++ // the strategy restarted its search itself
	}
	if !begun {
		if h, ok := cfg.Strategy.(Halter); ok {
			if why, err := h.Halted(); why != "" {
				rep.Stopped, rep.Err = why, err
				return true
			}
		}
		rep.Stopped = "exhausted"
		if ex, ok := cfg.Strategy.(Exhauster); ok {
			rep.Exhausted = ex.Exhausted()
			if x.fixedData {
				// The search enumerated interleavings, not the values drawn.
				rep.Exhausted += ", with math/rand's values held fixed (the same in every schedule)"
			}
		}
		return true
	}
	return false
}

// after takes in the result of an execution, and decides whether the exploration stops.
func (x *exploration) after(res *Result) (stop bool) {
	cfg, rep, r, body := &x.cfg, x.rep, &x.r, x.body
	passed := res.Bug == nil && res.Err == nil && res.Limitation == nil && !res.Skipped
	switch {
	case res.Bug == nil:
	case res.Bug.Delayed != "" && cfg.Sleeps == SleepsNotice:
		x.delayed.add(rep, sleepNotice(rep.Schedules+1, res.Bug))
		res.Bug = nil
	case res.Bug.ClockAhead != "":
		x.clockAhead.add(rep, clockAheadNotice(rep.Schedules+1, res.Bug))
		res.Bug = nil
	}
	promoted := x.output.take(rep, res, passed, x.number(rep.Schedules+1))
	cfg.Strategy.End(res)
	if res.Err != nil {
		if rc, ok := cfg.Strategy.(Recoverer); ok {
			if notice, ok := rc.Recovered(); ok {
				rep.Notices = append(rep.Notices, notice)
				rep.Recovered++
				return false
			}
		}
	}
	if p, ok := cfg.Strategy.(Prober); ok && p.Probe() && res.Err == nil && !res.Skipped {
		rep.Probes++
		return false
	}
	if res.DrewData && res.DataSeed == 0 {
		x.fixedData = true
	}
	rep.Schedules++
	fresh := false // a new race or operation pair
	if len(res.Races) > 0 {
		var races []DataRace // first seen
		rep.addRaces(x.races, res.Races, rep.Schedules, func(f []*DataRace) {
			r.raceStacks(body, r.e, f)
			for _, rc := range f {
				races = append(races, *rc)
			}
		})
		fresh = len(races) > 0
		switch {
		case r.racy == nil || cfg.FixedRacyPoints:
		case x.sharer != nil:
			// Every race on accesses that are not points yet, first seen here or not:
			// another process may have run the execution that saw it first.
			x.sharer.ShareRacyPoints(r.newRacy(res.Races))
		case r.growRacy(races):
			rep.RacyPointsGrew++
		}
	}
	if cfg.OnExecution != nil {
		cfg.OnExecution(rep.Schedules, res)
	}
	if res.StepBound {
		if rep.StepBound == 0 {
			rep.StepBoundAt = rep.Schedules
		}
		rep.StepBound++
	}
	if len(res.Background) > 0 {
		if rep.Background == nil {
			rep.Background = &BackgroundNotice{Goroutines: append([]GoroutineState(nil), res.Background...)}
		}
		rep.Background.Schedules++
	}
	if res.Goroutines > rep.MaxGoroutines {
		rep.MaxGoroutines = res.Goroutines
	}
	if res.Steps > rep.MaxSteps {
		rep.MaxSteps = res.Steps
	}
	if _, ok := x.seen[res.Fingerprint]; !ok {
		x.seen[res.Fingerprint] = struct{}{}
		rep.Interleavings++
		if cfg.Fingerprints && len(rep.Fingerprints) < MaxFingerprints {
			rep.Fingerprints = append(rep.Fingerprints, res.Fingerprint)
		}
	}
	if cfg.Plateau > 0 {
		// The execution's trace is still the runner's: the next one has not begun.
		if x.pairs.add(r.e.trace) > 0 {
			fresh = true
		}
		rep.Coverage = x.pairs.covered()
	}
	x.plateau.note(rep.Schedules, res, fresh)
	rep.Deterministic, rep.DrewData = !x.plateau.choice, x.plateau.drewData
	switch {
	case res.Err != nil:
		rep.Err = res.Err
		rep.Stopped = "error"
		return true
	case res.Limitation != nil:
		rep.Limitations = append(rep.Limitations, *res.Limitation)
		rep.Stopped = "limitation"
		return true
	case res.Skipped:
		rep.Stopped = "skipped"
		return true
	case res.Bug != nil:
		rep.Buggy++
		if rep.First == nil {
			rep.First = res.clone()
			rep.FirstAt = x.number(rep.Schedules)
		}
		if !cfg.KeepGoing {
			rep.Stopped = "bug"
			return true
		}
	case promoted && !cfg.KeepGoing:
		// This schedule passed, so an earlier one's different output was the schedule's.
		rep.Stopped = "bug"
		return true
	}
	// Goroutines the engine did not start may still be noting their operations (noteForeign).
	foreignMu.Lock()
	foreign, foreignPos := res.Foreign, slices.Clone(res.ForeignPos)
	foreignMu.Unlock()
	if foreign > 0 && len(foreignPos) > 0 && len(rep.Limitations) < 16 {
		rep.Limitations = append(rep.Limitations, Limitation{
			Kind:    "foreign",
			Message: fmt.Sprintf("%d operation(s) by goroutines the engine did not start ran uncontrolled (first at %v)", foreign, foreignPos),
			Pos:     foreignPos[0],
		})
	}
	return false
}

// addRaces merges the races of execution n into the report; stacks is called with the races
// seen for the first time, to find their stacks, before they are added.
func (rep *Report) addRaces(index map[racePair]int, found []DataRace, n int, stacks func([]*DataRace)) {
	var fresh []*DataRace
	for i := range found {
		rc := &found[i]
		if j, ok := index[rc.key()]; ok {
			rep.Races[j].Schedules++
			continue
		}
		rc.Schedule, rc.Schedules = n, 1
		fresh = append(fresh, rc)
	}
	if len(fresh) == 0 {
		return
	}
	stacks(fresh)
	for _, rc := range fresh {
		index[rc.key()] = len(rep.Races)
		rep.Races = append(rep.Races, *rc)
	}
}

// bugNotice is the notice of the bugs of a kind that the exploration reports as a notice, not
// a failure: the execution counts as one that passed, and the exploration goes on. The notice
// names the first such bug and counts the schedules that had one.
type bugNotice struct {
	index, count int // index in the report's Notices, once count > 0
	first        string
}

func (b *bugNotice) add(rep *Report, text string) {
	b.count++
	if b.count == 1 {
		b.first, b.index = text, len(rep.Notices)
		rep.Notices = append(rep.Notices, text)
		return
	}
	rep.Notices[b.index] = fmt.Sprintf("%s (%d schedules in all)", b.first, b.count)
}

// clockAheadNotice is the notice of a bug that came after the virtual clock ran ahead of the
// program's work (Bug.ClockAhead): the time the program saw then is the clock's artefact.
func clockAheadNotice(n int, b *Bug) string {
	msg, _, _ := strings.Cut(b.Message, "\n")
	return fmt.Sprintf("schedule %d failed after the virtual clock ran ahead of the work (%s): %s at %s: %s. "+
		"A program that works and reads the clock at once sees time pass faster than a machine would run it, so a check of the time against the work done is not judged: not reported as a bug",
		n, b.ClockAhead, b.Kind, b.Pos, msg)
}

// number is the number by which the report names schedule n, the n-th execution counted: the
// strategy's own when it numbers its schedules (Numberer).
func (x *exploration) number(n int) int {
	if nb, ok := x.cfg.Strategy.(Numberer); ok && nb.Number() > 0 {
		return nb.Number()
	}
	return n
}

// exampleOutput decides whether an example's output that differs from its output comment
// (Bug.OutputDiffers) depends on the schedule. An example's output can differ from its
// comment in every schedule for a reason that is not an interleaving's: the example prints
// its own call stack (runtime.Callers: under the engine it runs through the harness and the
// engine, not testing.runExample), or something else the engine's code runs differently
// from go test's. Such a difference is the same in every schedule, so:
//
//   - the first schedule whose output differs is held back (pending), counted as one that
//     passed, and the exploration goes on within its budget;
//   - a schedule that passes (its output is the expected one) or whose output differs
//     differently makes the difference the schedule's: the held-back schedule becomes the
//     report's first bug, with its schedule, as any failure (and a difference after a
//     schedule that passed is a failure at once);
//   - when the exploration ends with every schedule that ran the example to its end giving
//     the same different output, the difference does not depend on the schedule: a notice
//     (Notice), not a bug.
//
// A user who runs one schedule (-schedules 1) gets the notice: one schedule cannot tell.
type exampleOutput struct {
	pending   *Result // the first schedule whose output differed, while undecided
	pendingAt int     // its number
	same      int     // the schedules whose output was pending's
	passed    bool    // a schedule passed
	decided   bool    // the difference depends on the schedule: every one is a bug now
}

// take takes in an execution's result, passed when it ended without a bug, an error, a
// limitation or a skip; n is its number. It holds back a difference of output while
// undecided (res.Bug set to nil: the exploration goes on), and reports whether it made the
// held-back schedule the report's first bug.
func (o *exampleOutput) take(rep *Report, res *Result, passed bool, n int) (promoted bool) {
	if o.decided {
		return false
	}
	differs := res.Bug != nil && res.Bug.OutputDiffers
	switch {
	case differs && o.passed:
		o.decided = true // reported as the bug it is
		return false
	case differs && o.pending == nil:
		o.pending, o.pendingAt, o.same = res.clone(), n, 1
		res.Bug = nil
		return false
	case differs && res.Bug.Output == o.pending.Bug.Output:
		o.same++
		res.Bug = nil
		return false
	case differs, passed:
		o.passed = o.passed || passed
		if o.pending == nil {
			return false
		}
		o.decided = true
		rep.Buggy += o.same
		if rep.First == nil {
			rep.First, rep.FirstAt = o.pending, o.pendingAt
		}
		o.pending = nil
		return true
	}
	return false
}

// Notice is the notice of a difference of output that was the same in every schedule, or ""
// when there is none.
func (o *exampleOutput) Notice() string {
	if o.pending == nil || o.decided {
		return ""
	}
	b := o.pending.Bug
	return fmt.Sprintf("the example's output differs from its output comment (%s) the same way in every schedule that ran it to its end (%d of them, the first schedule %d): "+
		"the difference does not depend on the schedule — the output depends on the call stack or on code the engine runs differently from go test — so it is not reported as a bug; "+
		"go test reports it if the example fails natively",
		b.Pos, o.same, o.pendingAt)
}
