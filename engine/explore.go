package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/interleave-dev/interleave/engine/schedule"
)

// Defaults of Config.
const (
	// DefaultMaxSteps is where the adaptive step bound (Config.MaxSteps 0) starts, and the
	// bound of a test whose executions end well before it.
	DefaultMaxSteps = 100_000
	// MaxAdaptiveSteps is the most the adaptive bound grows to: 32 times the default, whose
	// schedule (72 bytes a step) still fits the limit of a schedule file (bounded.Schedule).
	MaxAdaptiveSteps = 32 * DefaultMaxSteps
	// AdaptiveFactor times the longest execution that ended by itself bounds the adaptive
	// bound's growth once there is one.
	AdaptiveFactor  = 4
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
	// 0 means the adaptive bound (runner.stepBounds): DefaultMaxSteps, doubled while an
	// execution reaching it still changes state, up to MaxAdaptiveSteps; negative means no
	// bound.
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
	// Sleeps says whether executions may delay runnable goroutines past a sleep or a timer
	// (sleepdelay.go), and whether a bug that needed such a delay is a failure or a notice;
	// SleepDelays bounds the delays of one execution (0: DefaultSleepDelays; negative: none)
	// and SleepDelayMax their length (0: DefaultSleepDelayMax).
	Sleeps        SleepMode
	SleepDelays   int
	SleepDelayMax time.Duration
	// StrictLeaks reports goroutines that go on after the test returned (background.go) as
	// Leak bugs instead of a notice.
	StrictLeaks bool
	// Root, when set, is the directory that bug positions under it are made relative to
	// (the module's root), as the instrumenter writes operation positions: the same bug has
	// the same position wherever the module is, so that its schedule replays after a move.
	Root string
	// Plateau, when positive, stops the exploration once its executions stop showing
	// anything new (plateau.go): no new operation pair or data race in the last
	// max(Plateau, the number of the last execution that showed one) executions, or, while
	// no execution had a scheduling choice, after the one execution of a test without data
	// nondeterminism (PlateauDataOnly with it). 0: the exploration runs to its other bounds.
	Plateau int
	// PlateauTime, when positive, counts the plateau's floor in time too: the floor is at
	// most the executions that PlateauTime holds at the mean duration of the executions so
	// far, and not below PlateauMin (plateau.go).
	PlateauTime time.Duration
}

// UseFile configures c to execute as the schedule file f was recorded: with the same
// scheduling points (a replay must see the same decisions), and with the race detector
// failing at the first race when f's bug is a race.
func (c *Config) UseFile(f *schedule.File) error {
	c.Points, c.RacyPoints = PointsAll, nil
	c.Sleeps, c.SleepDelays, c.SleepDelayMax = SleepsOrder, 0, 0
	if f.Points != "" {
		p, err := ParsePoints(f.Points)
		if err != nil {
			return fmt.Errorf("schedule file %s: %w", f.Path, err)
		}
		c.Points, c.RacyPoints = p, f.RacyPoints
	}
	if f.FairSteps != 0 {
		// Recorded when it was not the default (-fair-steps, or a portfolio member's own):
		// the fairness rule's forced yields are part of the schedule.
		c.FairSteps = f.FairSteps
	}
	if f.SleepDelays > 0 {
		// The schedule may hold delays past timers: the replay offers them where the
		// recording did. A bug that needed one fails the replay, whatever the mode of the
		// exploration that saved it.
		c.Sleeps, c.SleepDelays, c.SleepDelayMax = SleepsFail, f.SleepDelays, time.Duration(f.SleepDelayMax)
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
	// Coverage is the number of distinct operation pairs the executions covered (coverage.go:
	// which operation followed which on an object), measured with Config.Plateau only.
	Coverage      int
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
	// "canceled", "limitation", "error" (the strategy failed: Err), "skipped", "plateau"
	// (nothing new in the last PlateauWindow executions, Config.Plateau).
	Stopped string
	// PlateauWindow is the number of executions in a row that showed nothing new when the
	// exploration stopped at its plateau; Deterministic is set when no execution had a
	// scheduling choice (one goroutine, no select between ready cases, no timer to fire),
	// and DrewData when the executions drew math/rand values.
	PlateauWindow int
	// PlateauFloor is the floor of the plateau's rule when it stopped: Config.Plateau, or
	// fewer executions when Config.PlateauTime held fewer.
	PlateauFloor  int
	Deterministic bool
	DrewData      bool
	Err           error
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
	// Notices are what the strategy had to give up, for a person (Recoverer): a portfolio's
	// member that left the rotation on an error of its own; and the bugs the exploration
	// reports as notices (a failure after the virtual clock ran ahead of the work, one that
	// needed a delay past a sleep, an example's output that differs the same way in every
	// schedule).
	Notices []string
	// Recovered counts the strategy's notices (Recoverer): a member of a portfolio that left
	// the rotation because the program was seen to be nondeterministic.
	Recovered int
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
	if b, ok := cfg.Strategy.(Budgeted); ok && cfg.Schedules > 0 {
		b.SetBudget(cfg.Schedules)
	}
	x.sharer, _ = cfg.Strategy.(PointsSharer)
	if x.sharer != nil && (x.r.racy == nil || cfg.FixedRacyPoints || !x.sharer.SharesRacyPoints()) {
		x.sharer = nil
	}
	go x.loop(0, false)
	abandoned := x.await()
	if n := x.output.Notice(); n != "" {
		x.rep.Notices = append(x.rep.Notices, n)
	}
	x.rep.Elapsed, x.rep.RacyPoints = time.Since(x.start), x.r.racyList
	if c, ok := cfg.Strategy.(Closer); ok && !abandoned {
		c.Close()
	}
	return x.rep
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
