package explore

import (
	"io"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// Defaults of Test.
const (
	DefaultStrategy  = strategy.Default
	DefaultSchedules = 10_000
	// ToolStrategy is the strategy interleave test and the debugger explore with when the
	// command line or the launch configuration names none: the portfolio, which found the
	// deadlock of the lockorder example in 2 schedules where PCT alone took 29. (Test, for
	// a test that calls the engine itself, keeps DefaultStrategy.)
	ToolStrategy = "portfolio"
	// DefaultTime is a test's default time budget, as go test -fuzztime is a fuzz target's:
	// a default run explores each test for at most this long (race-detection phase
	// included), at most DefaultSchedules, and stops sooner once its executions stop showing
	// anything new (engine.Config.Plateau). A budget of schedules given (Schedules,
	// INTERLEAVE_SCHEDULES) runs exactly those, without it.
	DefaultTime = 5 * time.Second
)

// Option configures Test.
type Option func(*options)

type options struct {
	strategyName string
	params       map[string]string
	strategy     engine.Strategy
	seed         uint64
	config       engine.Config
	dir          string
	replay       string
	events       *events       // the event stream of a test run by the interleave command (EventLog)
	minimize     time.Duration // the time budget of minimizing a bug's schedule; 0 = none
	raceRuns     int           // schedules of the race-detection phase of points "racy"
	strict       bool          // refuse to replay a schedule recorded by other code (INTERLEAVE_REPLAY_STRICT)
	confirm      bool          // replay a bug's schedule in a fresh process before reporting it (confirm.go)
	budget       int           // the schedules of the whole run (the part's share is config.Schedules)
	timeSet      bool          // the time budget was given (Timeout, INTERLEAVE_TIME), not the default
	part         strategy.Part // the part of a partitioned exploration this process explores (INTERLEAVE_PART)
	lockstep     string        // the file the rounds of a lockstep search come from (INTERLEAVE_LOCKSTEP)
}

// defaultOptions are the options of Test before any is applied.
func defaultOptions() options {
	o := options{strategyName: DefaultStrategy, seed: 1, raceRuns: DefaultRaceRuns}
	o.config.Schedules = DefaultSchedules
	// A default budget is not spent on executions that show nothing new (engine.Plateau);
	// an explicit one is (Schedules, INTERLEAVE_SCHEDULES).
	o.config.Plateau = engine.DefaultPlateau
	o.config.Time = DefaultTime
	o.config.Points = DefaultPoints
	o.config.Races = true
	return o
}

// Strategy selects a strategy by name ("random", "pct", "dfs", "ipb", "idb") with its
// parameters (nil for the defaults). The default is PCT with d=3, which found the most bugs in
// the SCTBench study.
func Strategy(name string, params map[string]string) Option {
	return func(o *options) { o.strategyName, o.params = name, params }
}

// Using explores with a strategy value, for strategies that have no name.
func Using(s engine.Strategy) Option { return func(o *options) { o.strategy = s } }

// Schedules bounds the number of schedules (default 10,000). Given, the exploration runs to
// it exactly (or to a bug, the end of the strategy's space, or a time budget given with
// Timeout): without it, a test stops at its default time budget (DefaultTime), and a test
// whose executions stop showing anything new — no new operation pair or data race — stops
// early (engine.Config.Plateau), a test with no scheduling choice explored once.
func Schedules(n int) Option { return func(o *options) { o.setSchedules(n) } }

func (o *options) setSchedules(n int) {
	o.config.Schedules, o.config.Plateau = n, 0
	if !o.timeSet {
		o.config.Time = 0
	}
}

// Plateau stops the exploration once its executions stop showing anything new, budget given
// or not (on), or never (off).
func Plateau(on bool) Option {
	return func(o *options) {
		o.config.Plateau = 0
		if on {
			o.config.Plateau = engine.DefaultPlateau
		}
	}
}

// Timeout bounds the test's wall-clock time, race-detection phase included (default
// DefaultTime without a budget of schedules; 0: no bound).
func Timeout(d time.Duration) Option {
	return func(o *options) { o.config.Time, o.timeSet = d, true }
}

// Seed sets the seed of randomized strategies (default 1, so that runs are reproducible).
func Seed(seed uint64) Option { return func(o *options) { o.seed = seed } }

// KeepGoing explores the whole budget after the first bug, counting buggy schedules.
func KeepGoing() Option { return func(o *options) { o.config.KeepGoing = true } }

// MaxSteps sets the livelock bound: an execution longer than n steps is a livelock.
func MaxSteps(n int) Option { return func(o *options) { o.config.MaxSteps = n } }

// Watchdog sets how long a goroutine may go without reaching a scheduling point before its
// execution is abandoned (engine.Config.Watchdog).
func Watchdog(d time.Duration) Option { return func(o *options) { o.config.Watchdog = d } }

// StrictLeaks reports goroutines that go on after the test returned as leaks instead of a
// notice (engine.Config.StrictLeaks).
func StrictLeaks(on bool) Option { return func(o *options) { o.config.StrictLeaks = on } }

// FairSteps sets the fairness bound: a goroutine that has executed n steps in a row while
// another goroutine could run is made to yield, as Go's scheduler would let the other run (0:
// engine.DefaultFairSteps; negative: no bound, so a busy-wait without a yield can livelock).
func FairSteps(n int) Option { return func(o *options) { o.config.FairSteps = n } }

// ScheduleDir sets where schedule files are saved (default: .interleave/schedules at the
// module root).
func ScheduleDir(dir string) Option { return func(o *options) { o.dir = dir } }

// Replay replays the schedule file at path instead of exploring.
func Replay(path string) Option { return func(o *options) { o.replay = path } }

// Defaults of the race detector and the scheduling points.
const (
	// DefaultPoints is SCTBench's method (seed 004, §5): detect racy accesses first, then
	// make only them (and synchronization) scheduling points.
	DefaultPoints = engine.PointsRacy
	// DefaultRaceRuns is the number of schedules of the race-detection phase. The study ran
	// its detector ten times per benchmark (seed 004, §5), but natively: real threads
	// interleave memory accesses at every instruction. Our detection schedules interleave only
	// at synchronization, so each shows fewer orders; with ten, radbench/bug1's racy accesses
	// were missed, with a hundred they are found, and a hundred synchronization-only
	// schedules cost milliseconds.
	DefaultRaceRuns = 100
)

// Points sets which shared-memory accesses are scheduling points: "all", "sync" or "racy"
// (the default).
func Points(mode engine.Points) Option { return func(o *options) { o.config.Points = mode } }

// RacesFail makes a data race a bug that fails the test, instead of a finding.
func RacesFail() Option { return func(o *options) { o.config.Races, o.config.RacesFail = true, true } }

// EventLog streams the exploration's progress and result to w as Events, one JSON document a
// line (the stream the interleave command reads; see package harness).
func EventLog(w io.Writer) Option { return func(o *options) { o.events = &events{w: w} } }

// Minimize gives the schedule of a bug up to d to be minimized to fewer preemptions before
// it is saved (0: not minimized, the default).
func Minimize(d time.Duration) Option { return func(o *options) { o.minimize = d } }
