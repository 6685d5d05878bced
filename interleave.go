// Package interleave explores the interleavings of a Go test under a controlled scheduler and
// reports the first one that fails, with a schedule file that replays it exactly.
//
//	func TestTransfer(t *testing.T) {
//		interleave.Explore(t, func(t *interleave.T) {
//			... code written against the engine's API (or rewritten to it by the instrumenter) ...
//		})
//	}
//
// Each schedule runs the body once, on goroutines the engine controls; the body gets a
// per-schedule *interleave.T whose Error, Fatal, Log, Cleanup and TempDir mean what they mean
// on a *testing.T. When a schedule fails, Explore fails the real test with the bug — its kind,
// message, position, every goroutine's stack — and the path of the saved schedule file, and
// running the test again with INTERLEAVE_REPLAY=<file> replays exactly that schedule.
//
// Environment variables override the options, so that a test can be explored harder or
// replayed without editing it: INTERLEAVE_STRATEGY (a strategy name, with parameters as
// "pct:d=2"), INTERLEAVE_SCHEDULES, INTERLEAVE_SEED, INTERLEAVE_REPLAY.
//
// The package, like the engine, uses the standard library only.
package interleave

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// T is the per-schedule test handle.
type T = engine.T

// Report summarizes an exploration.
type Report = engine.Report

// Defaults of Explore.
const (
	DefaultStrategy  = "pct"
	DefaultSchedules = 10_000
)

// Option configures Explore.
type Option func(*options)

type options struct {
	strategyName string
	params       map[string]string
	strategy     engine.Strategy
	seed         uint64
	config       engine.Config
	dir          string
	replay       string
	events       *events       // the event stream of a test run by the interleave command
	minimize     time.Duration // the time budget of minimizing a bug's schedule; 0 = none
	raceRuns     int           // schedules of the race-detection phase of points "racy"
}

// defaultOptions are the options of Explore and RunTest before any is applied.
func defaultOptions() options {
	o := options{strategyName: DefaultStrategy, seed: 1, raceRuns: DefaultRaceRuns}
	o.config.Schedules = DefaultSchedules
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

// Schedules bounds the number of schedules (default 10,000).
func Schedules(n int) Option { return func(o *options) { o.config.Schedules = n } }

// Timeout bounds the exploration's wall-clock time.
func Timeout(d time.Duration) Option { return func(o *options) { o.config.Time = d } }

// Seed sets the seed of randomized strategies (default 1, so that runs are reproducible).
func Seed(seed uint64) Option { return func(o *options) { o.seed = seed } }

// KeepGoing explores the whole budget after the first bug, counting buggy schedules.
func KeepGoing() Option { return func(o *options) { o.config.KeepGoing = true } }

// MaxSteps sets the livelock bound: an execution longer than n steps is a livelock.
func MaxSteps(n int) Option { return func(o *options) { o.config.MaxSteps = n } }

// FairSteps sets the fairness bound: a goroutine that has executed n steps in a row while
// another goroutine could run is made to yield, as Go's scheduler would let the other run (0:
// engine.DefaultFairSteps; negative: no bound, so a busy-wait without a yield can livelock).
func FairSteps(n int) Option { return func(o *options) { o.config.FairSteps = n } }

// ScheduleDir sets where schedule files are saved (default: .interleave/schedules at the
// module root).
func ScheduleDir(dir string) Option { return func(o *options) { o.dir = dir } }

// Replay replays the schedule file at path instead of exploring.
func Replay(path string) Option { return func(o *options) { o.replay = path } }

// Explore runs body once per schedule until a bug, the budget, or the end of the strategy's
// space, and fails t with the first bug found. It returns the exploration's report.
func Explore(t testing.TB, body func(*T), opts ...Option) *Report {
	t.Helper()
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	return explore(t, body, o)
}

func explore(t testing.TB, body func(*T), o options) *Report {
	t.Helper()
	if err := o.fromEnv(); err != nil {
		t.Fatalf("interleave: %v", err)
	}
	if err := o.envOptions(); err != nil {
		t.Fatalf("interleave: %v", err)
	}
	if err := o.raceOptions(); err != nil {
		t.Fatalf("interleave: %v", err)
	}
	o.config.Name = t.Name()
	info := testInfo(t)
	if o.replay != "" {
		return replay(t, body, o, info)
	}
	if p := os.Getenv("INTERLEAVE_MINIMIZE_FILE"); p != "" {
		minimizeFile(t, body, o, info, p, os.Getenv("INTERLEAVE_MINIMIZE_OUT"))
		return nil
	}
	fail := func(rep *Report, format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		if rep == nil {
			rep = &Report{Strategy: o.strategyName}
		}
		e := resultEvent(t.Name(), info, rep)
		e.Stopped, e.Error = "error", msg
		o.events.write(e)
		t.Fatalf("interleave: %s", msg)
	}
	s := o.strategy
	if s == nil {
		var err error
		if s, err = strategy.New(o.strategyName, o.params, o.seed); err != nil {
			fail(nil, "%v", err)
		}
	}
	o.config.Strategy = s
	start := time.Now()
	var detect *Report
	if o.config.Points == engine.PointsRacy && o.config.RacyPoints == nil {
		var err error
		if detect, err = detectRaces(body, &o); err != nil {
			fail(detect, "%v", err)
		}
		o.config.RacyPoints = racyPositions(detect.Races)
	}
	// The schedule file of the first bug is made while the strategy still describes that
	// execution (its Params, its seed).
	var file *schedule.File
	progress := o.progress(t.Name(), start)
	o.config.OnExecution = func(n int, r *engine.Result) {
		if r.Bug != nil && file == nil {
			file = engine.NewScheduleFile(r, info, s, n)
			file.Points = o.config.Points.String()
			if o.config.Points == engine.PointsRacy {
				file.RacyPoints = o.config.RacyPoints
			}
		}
		progress(n, r)
	}
	rep := engine.Explore(body, o.config)
	mergeDetected(rep, detect)
	// The findings document is written whatever the outcome, with the bug's schedule once
	// it is saved.
	var bugPath string
	defer func() {
		if o.events == nil && !o.config.Races {
			return
		}
		if _, err := saveFindings(&o, info, rep, detect, bugPath); err != nil {
			t.Logf("interleave: %v", err)
		}
	}()
	withFindings := func(e *Event) *Event {
		e.Points = o.config.Points.String()
		e.Races = len(rep.Races)
		if detect != nil {
			e.DetectionSchedules = detect.Schedules
		}
		if path, ok := findingsPath(info); ok {
			e.Findings = path
		}
		return e
	}
	switch {
	case rep.Err != nil:
		fail(rep, "%s: %v", s.Name(), rep.Err)
	case rep.Stopped == "limitation":
		fail(rep, "%s", rep.Limitations[len(rep.Limitations)-1].Message)
	case rep.Stopped == "skipped":
		o.events.write(withFindings(resultEvent(t.Name(), info, rep)))
		t.Skipf("interleave: the test skipped itself")
	case rep.First != nil:
		path, err := saveSchedule(o.dir, file)
		if err != nil {
			t.Errorf("interleave: %v", err)
		}
		bugPath = path
		e := withFindings(resultEvent(t.Name(), info, rep))
		e.Bug = bugEvent(rep.First, path)
		if err == nil && o.minimize > 0 {
			before, after, merr := minimizeSchedule(body, file, path, o.minimize)
			if merr != nil {
				t.Logf("interleave: minimize: %v", merr)
			} else if after < before {
				e.Bug.Preemptions, e.Bug.FoundPreemptions = after, before
			}
		}
		e.Report = FormatFailure(rep, path, t.Name())
		if e.Bug.FoundPreemptions > 0 {
			e.Report += fmt.Sprintf("minimized: %d preemption(s) as found, %d in the saved schedule\n", e.Bug.FoundPreemptions, e.Bug.Preemptions)
		}
		o.events.write(e)
		t.Errorf("%s", e.Report)
	default:
		o.events.write(withFindings(resultEvent(t.Name(), info, rep)))
		if testing.Verbose() {
			t.Logf("interleave: %s", Summary(rep))
		}
	}
	return rep
}

// replay runs the schedule file o.replay once and fails t unless it reproduces its bug.
func replay(t testing.TB, body func(*T), o options, info schedule.Test) *Report {
	t.Helper()
	f, err := schedule.Load(o.replay)
	if err == nil {
		err = f.Check(info)
	}
	if err != nil {
		e := resultEvent(t.Name(), info, &Report{Strategy: "replay"})
		e.Stopped, e.Error = "error", err.Error()
		o.events.write(e)
		t.Fatalf("interleave: %v", err)
	}
	o.config.MaxSteps = engine.ReplayMaxSteps(f)
	o.config.Record = true
	o.config.Races, o.config.RacesFail = false, false
	o.config.UseFile(f) // validated by Load
	r := engine.Run(body, strategy.NewReplayFile(f), o.config)
	rep := &Report{Strategy: "replay", Schedules: 1, First: r, FirstAt: 1, Stopped: "bug"}
	e := resultEvent(t.Name(), info, rep)
	e.Trace = r.Schedule
	if err := engine.CheckReproduced(f, r); err != nil {
		e.Stopped, e.Error = "error", err.Error()
		o.events.write(e)
		t.Fatalf("interleave: %v", err)
	}
	if r.Bug != nil {
		e.Bug = bugEvent(r, o.replay)
		e.Report = FormatFailure(rep, o.replay, "")
		t.Errorf("%s", e.Report)
	} else {
		e.Stopped = "passed"
	}
	o.events.write(e)
	return rep
}

// fromEnv applies the INTERLEAVE_* environment variables.
func (o *options) fromEnv() error {
	if v := os.Getenv("INTERLEAVE_STRATEGY"); v != "" {
		name, params, err := ParseStrategy(v)
		if err != nil {
			return fmt.Errorf("INTERLEAVE_STRATEGY: %w", err)
		}
		o.strategyName, o.params, o.strategy = name, params, nil
	}
	if v := os.Getenv("INTERLEAVE_SCHEDULES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("INTERLEAVE_SCHEDULES=%q: want a number of schedules", v)
		}
		o.config.Schedules = n
	}
	if v := os.Getenv("INTERLEAVE_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("INTERLEAVE_SEED=%q: want an unsigned integer", v)
		}
		o.seed = n
	}
	if v := os.Getenv("INTERLEAVE_REPLAY"); v != "" {
		o.replay = v
	}
	return nil
}

// ParseStrategy parses "name" or "name:key=value,key=value".
func ParseStrategy(s string) (name string, params map[string]string, err error) {
	name, rest, _ := strings.Cut(s, ":")
	if name == "" {
		return "", nil, fmt.Errorf("empty strategy name in %q", s)
	}
	if rest == "" {
		return name, nil, nil
	}
	params = make(map[string]string)
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return "", nil, fmt.Errorf("strategy parameter %q in %q: want key=value", kv, s)
		}
		params[k] = v
	}
	return name, params, nil
}

// testInfo identifies the running test for schedule files: the module and package from the
// working directory (go test runs a test in its package's directory), and the build identity
// from the test binary.
func testInfo(t testing.TB) schedule.Test {
	info := schedule.Test{Name: t.Name()}
	dir, err := os.Getwd()
	if err != nil {
		return info
	}
	if root, module, ok := FindModule(dir); ok {
		info.Module = module
		rel, err := filepath.Rel(root, dir)
		if err == nil {
			info.Package = strings.TrimSuffix(module+"/"+filepath.ToSlash(rel), "/.")
		}
	}
	info.Build = buildID()
	return info
}
