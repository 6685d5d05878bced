package engine

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/interleave-dev/interleave/engine/schedule"
)

// Defaults of Config.
const (
	DefaultMaxSteps = 100_000
	DefaultWatchdog = 10 * time.Second
)

// Config says how to explore a test body.
type Config struct {
	// Strategy chooses the interleavings. Required.
	Strategy Strategy
	// Name is the test's name, returned by T.Name.
	Name string
	// Schedules bounds the number of executions; 0 means no bound.
	Schedules int
	// Time bounds the exploration's wall-clock time; 0 means no bound.
	Time time.Duration
	// MaxSteps is the step bound: an execution with more steps ends, as a Livelock bug when
	// its goroutines were only polling, else with Result.StepBound set (background.go).
	// 0 means DefaultMaxSteps; negative means no bound.
	MaxSteps int
	// KeepGoing goes on after the first bug, counting buggy schedules.
	KeepGoing bool
	// Watchdog is how long the running goroutine may go without reaching a scheduling point
	// before the execution is abandoned as blocked outside the engine's control.
	// 0 means DefaultWatchdog.
	Watchdog time.Duration
	// Record keeps the schedule of every execution in its Result (it is always kept for
	// executions with a bug or an error).
	Record bool
	// Context cancels the exploration; what was found so far is kept.
	Context context.Context
	// OnExecution, when set, is called after each execution with its number (from 1) and
	// result, on the exploring goroutine. The result is only valid during the call.
	OnExecution func(n int, r *Result)
	// Points says which shared-memory accesses are scheduling points (default: all), and
	// RacyPoints lists the positions of those that are with PointsRacy.
	Points     Points
	RacyPoints []Pos
	// FixedRacyPoints keeps RacyPoints as they are: races first seen during the exploration
	// do not make their accesses points.
	FixedRacyPoints bool
	// Fingerprints makes the report list the distinct interleavings' fingerprints (up to
	// MaxFingerprints), so that the parts of a partitioned exploration can count their union.
	Fingerprints bool
	// Races turns the data-race detector on; RacesFail makes the first race of an
	// execution a bug (kind Race) that ends it, instead of a finding.
	Races     bool
	RacesFail bool
	// FairSteps is the fairness bound (fair.go): a goroutine that has executed this many
	// steps in a row while another was enabled is made to yield. 0 means DefaultFairSteps;
	// negative means no bound.
	FairSteps int
	// StrictLeaks reports goroutines that go on after the test returned (background.go) as
	// Leak bugs instead of a notice.
	StrictLeaks bool
	// Root, when set, is the directory that bug positions under it are made relative to
	// (the module's root), as the instrumenter writes operation positions: the same bug has
	// the same position wherever the module is, so that its schedule replays after a move.
	Root string
}

// UseFile configures c to execute as the schedule file f was recorded: with the same
// scheduling points (a replay must see the same decisions), and with the race detector
// failing at the first race when f's bug is a race.
func (c *Config) UseFile(f *schedule.File) error {
	c.Points, c.RacyPoints = PointsAll, nil
	if f.Points != "" {
		p, err := ParsePoints(f.Points)
		if err != nil {
			return fmt.Errorf("schedule file %s: %w", f.Path, err)
		}
		c.Points, c.RacyPoints = p, f.RacyPoints
	}
	if f.Bug != nil && BugKind(f.Bug.Kind) == Race {
		c.Races, c.RacesFail = true, true
	}
	return nil
}

// MaxFingerprints bounds Report.Fingerprints: beyond it, the parts' union is approximate.
const MaxFingerprints = 20000

// Report summarizes an exploration.
type Report struct {
	Strategy string
	// Schedules is the number of executions run, Buggy how many of them had a bug.
	Schedules int
	Buggy     int
	// Probes is the number of executions of a partitioned search (Prober) that explored
	// another part's schedule to learn the tree; they are not among Schedules.
	Probes int
	// Interleavings is the number of distinct happens-before orders among the executions,
	// and Fingerprints theirs, with Config.Fingerprints.
	Interleavings int
	Fingerprints  []uint64
	MaxGoroutines int
	MaxSteps      int
	Elapsed       time.Duration
	// RacyPoints are the racy accesses that were scheduling points at the end, with
	// Config.Points racy; RacyPointsGrew how many times races first seen during the
	// exploration added to them (growRacy).
	RacyPoints     []Pos
	RacyPointsGrew int
	// First is the first execution with a bug (nil if none), and FirstAt its number.
	First   *Result
	FirstAt int
	// Exhausted, when the strategy's space was exhausted, says what was covered.
	Exhausted string
	// Stopped says why the exploration stopped: "bug", "schedules", "time", "exhausted",
	// "canceled", "limitation", "error" (the strategy failed: Err), "skipped".
	Stopped string
	Err     error
	// Limitations lists what the engine could not control.
	Limitations []Limitation
	// Races are the data races found (Config.Races), each pair of source positions once, in
	// the order found.
	Races []DataRace
	// StepBound counts the executions that reached the step bound without evidence of a
	// livelock (Result.StepBound), and StepBoundAt is the first of them.
	StepBound   int
	StepBoundAt int
	// Background, when not nil, describes the goroutines that went on after the test
	// returned (background.go): what the first such execution left, and how many did.
	Background *BackgroundNotice
}

// SchedulesPerSecond is the exploration's throughput.
func (r *Report) SchedulesPerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Schedules) / r.Elapsed.Seconds()
}

// exploring serializes explorations: the scheduled goroutine is process-wide state.
var exploring sync.Mutex

// Explore runs body once per schedule chosen by cfg.Strategy, until the first bug (or, with
// KeepGoing, until the budget), a budget, cancellation, or the strategy's space is exhausted.
func Explore(body func(*T), cfg Config) *Report {
	exploring.Lock()
	defer exploring.Unlock()
	if cfg.Context == nil {
		cfg.Context = context.Background()
	}
	x := &exploration{
		body:      body,
		cfg:       cfg,
		rep:       &Report{Strategy: cfg.Strategy.Name()},
		start:     time.Now(),
		seen:      make(map[uint64]struct{}),
		r:         newRunner(cfg),
		races:     make(map[racePair]int),
		finished:  make(chan struct{}),
		fired:     make(chan *watched, 1),
		abandoned: make(chan struct{}),
	}
	x.sharer, _ = cfg.Strategy.(PointsSharer)
	if x.sharer != nil && (x.r.racy == nil || cfg.FixedRacyPoints || !x.sharer.SharesRacyPoints()) {
		x.sharer = nil
	}
	go x.loop(0, false)
	x.await()
	x.rep.Elapsed, x.rep.RacyPoints = time.Since(x.start), x.r.racyList
	return x.rep
}

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
	sharer    PointsSharer

	// turn is the execution in flight, its number shifted left by 2, with its state in the
	// low bits (turnPassed, turnEnded, turnAbandoned); cur is the same number, for the
	// goroutine that ends the execution (pass).
	turn      atomic.Uint64
	cur       uint64
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
	if resuming {
		res, ok := x.finish(turn|turnPassed, x.r.e, x.pendingT, x.rep.First == nil)
		if !ok || x.after(res) {
			normal = true
			if ok {
				close(x.finished)
			}
			return
		}
	}
	for !x.before() {
		turn = x.turn.Load()&^3 + 4
		x.cur = turn
		x.turn.Store(turn)
		inRoot = true
		res, ok := x.runInline(turn, x.rep.First == nil)
		inRoot = false
		if !ok || x.after(res) {
			normal = true
			if ok {
				close(x.finished)
			}
			return
		}
	}
	normal = true
	close(x.finished)
}

// pass passes the loop on to a new goroutine: the execution ended while its first goroutine,
// which the loop's goroutine runs, is blocked (Exec.end). That goroutine is reaped by the new
// one.
func (x *exploration) pass() {
	if t := x.cur; x.turn.CompareAndSwap(t, t|turnPassed) {
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
	e.inline, e.baton = nil, nil
	return x.r.collect(t, wantStacks), true
}

// await waits for the loop to end, abandoning an execution the watchdog reports stalled.
func (x *exploration) await() {
	for {
		select {
		case <-x.finished:
			return
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
			return
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
	cfg.Strategy.End(res)
	if p, ok := cfg.Strategy.(Prober); ok && p.Probe() && res.Err == nil && !res.Skipped {
		rep.Probes++
		return false
	}
	if res.DrewData && res.DataSeed == 0 {
		x.fixedData = true
	}
	rep.Schedules++
	if len(res.Races) > 0 {
		var fresh []DataRace
		rep.addRaces(x.races, res.Races, rep.Schedules, func(f []*DataRace) {
			r.raceStacks(body, r.e, f)
			for _, rc := range f {
				fresh = append(fresh, *rc)
			}
		})
		switch {
		case r.racy == nil || cfg.FixedRacyPoints:
		case x.sharer != nil:
			// Every race on accesses that are not points yet, first seen here or not:
			// another process may have run the execution that saw it first.
			x.sharer.ShareRacyPoints(r.newRacy(res.Races))
		case r.growRacy(fresh):
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
			rep.FirstAt = rep.Schedules
			if n, ok := cfg.Strategy.(Numberer); ok && n.Number() > 0 {
				rep.FirstAt = n.Number()
			}
		}
		if !cfg.KeepGoing {
			rep.Stopped = "bug"
			return true
		}
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

// Run runs body once under s: one execution, with its schedule recorded. It is what replay
// and tests use.
func Run(body func(*T), s Strategy, cfg Config) *Result {
	exploring.Lock()
	defer exploring.Unlock()
	cfg.Strategy = s
	cfg.Record = true
	if !s.Begin() {
		return &Result{Err: fmt.Errorf("strategy %s has nothing to run", s.Name())}
	}
	r := newRunner(cfg)
	res := r.run(body, true).clone()
	s.End(res)
	return res
}

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
	maxSteps := r.cfg.MaxSteps
	if maxSteps == 0 {
		maxSteps = DefaultMaxSteps
	}
	restoreState()
	e.reset(r.cfg.Strategy, maxSteps)
	e.numBase = r.numBase
	e.fairSteps = r.cfg.fairSteps()
	e.configure(&r.cfg, r.racy)
	if e.race != nil {
		e.race.capture = r.capture
	}
	t := &T{e: e, name: r.cfg.Name}
	main := e.newGoroutine(func() {
		defer t.finish()
		body(t)
	}, "")
	e.raceGo(nil, main)
	e.setEnabled(main, true)
	e.cur = main
	active.Store(e)
	return main, t
}

// collect reaps the goroutines of the execution that ended and returns its result.
func (r *runner) collect(t *T, wantStacks bool) *Result {
	e := r.e
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

	res := &e.result
	res.Steps = e.steps
	res.Goroutines = len(e.gs)
	res.Skipped = t.skipped && res.Bug == nil
	res.Logs = t.logs
	res.Fingerprint = e.fp.sum(e.trace, len(e.gs))
	res.Races = e.races()
	res.RacyPoints = r.racyList
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
// A goroutine found running in the program's code (busyGoroutine) means a loop without a
// scheduling point rather than an operation blocked outside the engine, and the message says so.
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
	why := "it is blocked outside the engine's control (an uninstrumented operation, a real system call or lock)"
	s := examine(stacks)
	switch {
	case s.busy != "":
		why = fmt.Sprintf("it kept running without one (a goroutine is running in %s): a loop or a computation with no instrumented operation in it, such as a busy-wait on a variable of uninstrumented code", s.busy)
	case s.blockedIn != "":
		why = fmt.Sprintf("it is blocked outside the engine's control, in %s (%s) [%s]", s.blockedIn, s.at, s.state)
		if mod := uninstrumentedModule(packageOf(s.blockedIn)); mod != "" {
			why += fmt.Sprintf(": module %s is not instrumented, and interleave test -instrument %s would control it", mod, mod)
		} else {
			why += ": an operation the engine does not control (a real system call, cgo, or a construct the instrumenter reported)"
		}
	}
	return &Limitation{
		Kind:    "watchdog",
		Message: fmt.Sprintf("%v (%s) did not reach a scheduling point for %v: %s; the execution was abandoned", stuck.id, where, wd, why),
		Pos:     stuck.created,
	}
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

// mix is a 64-bit finalizer (splitmix64).
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// clone copies a result out of the reused execution.
func (r *Result) clone() *Result {
	c := *r
	c.ForeignPos = append([]Pos(nil), r.ForeignPos...)
	c.Logs = append([]string(nil), r.Logs...)
	c.Races = append([]DataRace(nil), r.Races...)
	c.Background = append([]GoroutineState(nil), r.Background...)
	return &c
}
