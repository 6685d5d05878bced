// The flags of interleave test: parsed by hand, as go test parses its own, so that build
// flags and a strategy's parameters mix with the command's in any order; and its usage.

package test

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/base"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/report"
	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// testFlags are the flags of interleave test, parsed the way go test parses its own: flags
// and packages in any order.
type testFlags struct {
	run       string
	skip      string
	strategy  string
	params    map[string]string
	schedules int
	// schedulesSet: -schedules was given, and is explored whole (no plateau).
	schedulesSet bool
	// time is -time, each test's budget; timeSet: it was given. Without -schedules or
	// -time, a test's budget is explore.DefaultTime, within the run's -total-time
	// (testBudget).
	time       time.Duration
	timeSet    bool
	totalTime  time.Duration
	seed       uint64
	keepGoing  bool
	noSaved    bool // -saved=false: do not replay the saved schedules first
	strictLeak bool
	json       bool
	workers    int                // test processes at once (-p)
	shard      strategy.PartLevel // this run's shard of the exploration (-shard i/n); Count 0 for none
	junit      string             // the JUnit XML report's path, "" for none
	sarif      string             // the SARIF log's path, "" for none
	origin     string             // who started the run, recorded in its summary (.interleave/runs)
	verbose    bool
	minimize   time.Duration
	maxSteps   int
	fairSteps  int
	sleeps     string // -sleeps: order, notice or fail (engine.SleepMode)
	points     string
	races      string
	raceRuns   int
	modules    []string
	buildFlags []string
	packages   []string
}

// DefaultSleeps is -sleeps' default: a runnable goroutine may be delayed past a sleep of up to
// 10ms (engine.DefaultSleepDelayMax, once per schedule), and a bug that needs such
// a delay is reported as a notice, not a failure. Go promises nothing about how long a
// runnable goroutine waits, so the bug is real; but a test that lets a goroutine run by
// sleeping fails only on a machine loaded enough to stall it for the whole sleep, and passes
// go test everywhere else: reported as a failure by default, it would fail suites that pass
// in every CI run, and a false report costs a user's trust more than a miss. -sleeps=fail
// makes it a failure, with its schedule; -sleeps=order explores no delay (every sleeper wakes
// after the runnable goroutines have run, the engine's own default).
const DefaultSleeps = engine.SleepsNotice

// valueFlags take a value; boolFlags do not. Anything else of the form -key=value or
// -key value is a parameter of the strategy.
var (
	buildValueFlags = map[string]bool{"tags": true, "gcflags": true, "ldflags": true, "asmflags": true, "mod": true, "modfile": false, "toolexec": true, "pgo": true}
	buildBoolFlags  = map[string]bool{"trimpath": true, "a": true}
)

func parseTestFlags(args []string) (*testFlags, error) {
	f := &testFlags{strategy: explore.ToolStrategy, params: map[string]string{}, schedules: explore.DefaultSchedules, time: explore.DefaultTime, totalTime: DefaultTotalTime,
		seed: 1, minimize: 5 * time.Second, workers: runtime.NumCPU(),
		points: explore.DefaultPoints.String(), races: "report", raceRuns: explore.DefaultRaceRuns, sleeps: DefaultSleeps.String()}
	if !contains(strategy.Names, explore.ToolStrategy) {
		f.strategy = explore.DefaultStrategy
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			f.packages = append(f.packages, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		value, hasValue := "", false
		if k, v, ok := strings.Cut(name, "="); ok {
			name, value, hasValue = k, v, true
		}
		next := func() (string, error) {
			if hasValue {
				return value, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("%w: flag -%s needs a value", base.ErrUsage, name)
			}
			i++
			return args[i], nil
		}
		boolValue := func() (bool, error) {
			if !hasValue {
				return true, nil
			}
			b, err := strconv.ParseBool(value)
			if err != nil {
				return false, fmt.Errorf("%w: -%s=%s: want true or false", base.ErrUsage, name, value)
			}
			return b, nil
		}
		var err error
		switch name {
		case "h", "help":
			return nil, flag_ErrHelp
		case "run":
			f.run, err = next()
			if err == nil {
				_, err = regexp.Compile(f.run)
				if err != nil {
					err = fmt.Errorf("%w: -run %q: %v", base.ErrUsage, f.run, err)
				}
			}
		case "skip":
			f.skip, err = next()
			if err == nil {
				if _, err = regexp.Compile(f.skip); err != nil {
					err = fmt.Errorf("%w: -skip %q: %v", base.ErrUsage, f.skip, err)
				}
			}
		case "strategy":
			var v string
			if v, err = next(); err == nil {
				name, params, perr := strategy.Parse(v)
				if perr != nil {
					return nil, fmt.Errorf("%w: -strategy: %v", base.ErrUsage, perr)
				}
				f.strategy = name
				for k, v := range params {
					f.params[k] = v
				}
			}
		case "schedules":
			var v string
			if v, err = next(); err == nil {
				f.schedulesSet = true
				f.schedules, err = strconv.Atoi(v)
				if err != nil || f.schedules < 0 {
					err = fmt.Errorf("%w: -schedules %q: want a number ≥ 0 (0: no limit)", base.ErrUsage, v)
				}
			}
		case "time":
			var v string
			if v, err = next(); err == nil {
				f.timeSet = true
				if f.time, err = time.ParseDuration(v); err != nil || f.time < 0 {
					err = fmt.Errorf("%w: -time %q: want a duration ≥ 0 such as 30s (0: no limit)", base.ErrUsage, v)
				}
			}
		case "total-time":
			var v string
			if v, err = next(); err == nil {
				if f.totalTime, err = time.ParseDuration(v); err != nil || f.totalTime < 0 {
					err = fmt.Errorf("%w: -total-time %q: want a duration ≥ 0 such as 5m (0: no limit)", base.ErrUsage, v)
				}
			}
		case "minimize":
			var v string
			if v, err = next(); err == nil {
				if f.minimize, err = time.ParseDuration(v); err != nil || f.minimize < 0 {
					err = fmt.Errorf("%w: -minimize %q: want a duration ≥ 0 (0 turns minimization off)", base.ErrUsage, v)
				}
			}
		case "seed":
			var v string
			if v, err = next(); err == nil {
				if f.seed, err = strconv.ParseUint(v, 10, 64); err != nil {
					err = fmt.Errorf("%w: -seed %q: want an unsigned integer", base.ErrUsage, v)
				}
			}
		case "max-steps":
			var v string
			if v, err = next(); err == nil {
				if f.maxSteps, err = strconv.Atoi(v); err != nil || f.maxSteps < 0 {
					err = fmt.Errorf("%w: -max-steps %q: want a number of steps ≥ 0 (0: the adaptive default, from %d)", base.ErrUsage, v, engine.DefaultMaxSteps)
				}
			}
		case "fair-steps":
			var v string
			if v, err = next(); err == nil {
				if f.fairSteps, err = strconv.Atoi(v); err != nil {
					err = fmt.Errorf("%w: -fair-steps %q: want a number of steps (0: the default, %d; negative: no fairness)", base.ErrUsage, v, engine.DefaultFairSteps)
				}
			}
		case "points":
			var v string
			if v, err = next(); err == nil {
				if _, perr := engine.ParsePoints(v); perr != nil {
					err = fmt.Errorf("%w: -points: %v", base.ErrUsage, perr)
				}
				f.points = v
			}
		case "races":
			var v string
			if v, err = next(); err == nil {
				if v != "report" && v != "fail" && v != "off" {
					err = fmt.Errorf("%w: -races %q: want report, fail or off", base.ErrUsage, v)
				}
				f.races = v
			}
		case "sleeps":
			var v string
			if v, err = next(); err == nil {
				if _, perr := engine.ParseSleepMode(v); perr != nil {
					err = fmt.Errorf("%w: -sleeps %q: want order, notice or fail", base.ErrUsage, v)
				}
				f.sleeps = v
			}
		case "race-runs":
			var v string
			if v, err = next(); err == nil {
				if f.raceRuns, err = strconv.Atoi(v); err != nil || f.raceRuns < 1 {
					err = fmt.Errorf("%w: -race-runs %q: want a positive number of schedules", base.ErrUsage, v)
				}
			}
		case "instrument":
			var v string
			if v, err = next(); err == nil {
				f.modules = append(f.modules, strings.Split(v, ",")...)
			}
		case "keep-going":
			f.keepGoing, err = boolValue()
		case "saved":
			var saved bool
			saved, err = boolValue()
			f.noSaved = !saved
		case "strict-leaks":
			f.strictLeak, err = boolValue()
		case "json":
			f.json, err = boolValue()
		case "junit":
			if f.junit, err = next(); err == nil && f.junit == "" {
				err = fmt.Errorf("%w: -junit: want the path of the report to write", base.ErrUsage)
			}
		case "sarif":
			if f.sarif, err = next(); err == nil && f.sarif == "" {
				err = fmt.Errorf("%w: -sarif: want the path of the log to write", base.ErrUsage)
			}
		case "origin":
			f.origin, err = next()
		case "p":
			var v string
			if v, err = next(); err == nil {
				if f.workers, err = strconv.Atoi(v); err != nil || f.workers < 1 {
					err = fmt.Errorf("%w: -p %s: want a number of worker processes ≥ 1 (stride's parameter p is set as -strategy stride:p=…)", base.ErrUsage, v)
				}
			}
		case "shard":
			var v string
			if v, err = next(); err == nil {
				if f.shard, err = strategy.ParsePartLevel(v); err != nil {
					err = fmt.Errorf("%w: -shard: %v", base.ErrUsage, err)
				}
			}
		case "v":
			f.verbose, err = boolValue()
		default:
			switch {
			case buildValueFlags[name]:
				var v string
				if v, err = next(); err == nil {
					f.buildFlags = append(f.buildFlags, "-"+name+"="+v)
				}
			case buildBoolFlags[name]:
				f.buildFlags = append(f.buildFlags, a)
			case strategy.IsParam(name):
				var v string
				if v, err = next(); err == nil {
					f.params[name] = v
				}
			default:
				err = fmt.Errorf("%w: flag provided but not defined: -%s (neither a flag of interleave test, a build flag, nor a parameter of a strategy; see interleave test -h)", base.ErrUsage, name)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if len(f.packages) == 0 {
		f.packages = []string{"."}
	}
	if f.schedulesSet && !f.timeSet {
		f.time = 0 // -schedules N alone runs exactly N
	}
	return f, nil
}

// DefaultTotalTime is the default budget of a whole run (-total-time): the tests share it,
// each no more than its own budget (-time, explore.DefaultTime by default), so that
// interleave test ./... on a large module ends in minutes, not hours.
const DefaultTotalTime = 2 * time.Minute

// minTestTime is the least a test's default budget is cut to when the run's is spent: every
// test is still explored a little (its first schedules) rather than not at all.
const minTestTime = 500 * time.Millisecond

// testBudget is the time budget of the test that starts after elapsed of the run, with left
// tests (this one included) still to start on workers processes: -time as given, or, by
// default, the default budget per test, cut to the test's share of what is left of the run's
// -total-time (the tests left, by workers at once), but never below minTestTime. 0: no
// budget.
func (f *testFlags) testBudget(elapsed time.Duration, left, workers int) time.Duration {
	if f.timeSet || f.schedulesSet || f.time == 0 || f.totalTime == 0 {
		return f.time
	}
	rounds := (left + workers - 1) / max(workers, 1)
	share := (f.totalTime - elapsed) / time.Duration(max(rounds, 1))
	return min(f.time, max(share, minTestTime))
}

// reportConfig is what the JUnit and SARIF reports say of how the run explored; interrupted
// is the signal that interrupted it, "" when it went to its end.
func (f *testFlags) reportConfig(interrupted string) *report.Config {
	return &report.Config{Strategy: f.strategy, Params: f.params, Seed: f.seed, Schedules: f.schedules, Points: f.points, Races: f.races, Interrupted: interrupted}
}

var flag_ErrHelp = errors.New("help")

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

const testUsage = `usage: interleave test [build flags] [packages] [-run regexp] [-skip regexp] [-strategy name] [-param value ...]
	[-schedules N] [-time D] [-total-time D] [-seed S] [-keep-going] [-saved=false] [-minimize D] [-max-steps N] [-fair-steps N]
	[-sleeps order|notice|fail] [-strict-leaks] [-instrument modules]
	[-points racy|sync|all] [-races report|fail|off] [-race-runs N] [-p N] [-shard i/n]
	[-json] [-junit file] [-sarif file] [-origin label] [-v]

Test instruments the packages (the main module's; -instrument adds other modules, by module
path prefix, comma-separated) and explores each test that -run selects under the controlled
scheduler: every schedule runs the test's body once, in one process. No file of the module is
modified. A bug's schedule is saved in .interleave/schedules at the module root and minimized
(-minimize, default 5s) to the fewest preemptions; interleave replay FILE replays it.

Data races are detected in every schedule (happens-before, vector clocks) and written to
.interleave/findings; interleave races prints them. They are findings, not failures, unless
-races=fail. -points chooses the scheduling points among memory accesses: racy (the default:
a detection phase of -race-runs schedules finds the racy accesses, then only they and
synchronization are interleaved, as SCTBench does; a race first seen while exploring adds its
accesses), sync (synchronization only) or all.

A goroutine that runs -fair-steps steps in a row (default 1000) while another could run is
made to yield, as Go's scheduler lets the other run: a busy-wait without runtime.Gosched is not
a livelock. A negative -fair-steps turns this off.

After the test returns, its goroutines run on in virtual time until each has finished, is
blocked forever, or only recurring timers are left (a ticker, a polling loop). One blocked
forever sending or locking is a leak, at that operation, whatever the length of the work it
waited for; one idle in its receiving loop (a worker the test never stopped) and those left on a
ticker are a notice, as go test does not fail them, unless -strict-leaks makes them leaks.

Virtual time passes a little at every step, faster the longer the program runs without
blocking, so that a loop bounded by a deadline ends; no faster than 256ns a step while it works
(writes, locks, channel operations) without looking at the time, so that workers do not see
hours pass; time.Now never returns the same instant twice.

-p N runs up to N test processes at once (default: the number of CPUs), as go test -p does;
the output stays per test and in order. The tests start longest first, by what they took in
the newest runs in .interleave/runs (the tests never seen first). A test with processes to
spare (fewer tests than N) is split among several, each exploring a disjoint part of its
schedules: a randomized strategy's executions by their per-execution seeds, a systematic
one's schedule tree by decision prefixes; together they explore what one process would, and
the first bug stops them all unless -keep-going. -shard i/n explores shard i of n of every test's schedules in the same
way, decided only by the flags, the seed and i/n: n machines (Kubernetes Indexed Jobs, a CI
matrix) run the n shards with the same command line, and interleave merge combines their
results stores. With at least 4 tests per shard and no -time, the shards split the test list
instead (shard i explores every n-th test whole). PERIOD's next schedules come from its
earlier executions: the processes of one machine explore a test in step (each executes its
share of every job's schedules, and they exchange what the executions revealed at the job's
end, so that they explore exactly what one process would); the shards, which cannot talk,
split the test list, whatever its length.

Strategies: %s. Parameters of the strategy are flags: -d 2 (pct), -max 3 (idb); stride's p is
set as -strategy stride:p=0.0216, -p being the number of processes.

Without -schedules or -time, each test has a time budget (-time, default 5s, race-detection
phase included; the run's -total-time, default 2m, is shared among the tests, none cut below
0.5s) and at most 10,000 schedules, and stops early once its executions stop covering anything
new: no new operation pair (which operation follows which on an object, by kind and line, by one
goroutine or two) or data race in the last max(floor, the number of the last schedule that
covered one) schedules ("stopped: no new operation pair or data race in the last 1,000
schedules"; the line counts the pairs covered). The floor is 1,000 schedules, or as many as a
twentieth of the test's time budget holds at their mean duration when fewer, but at least 100
("... in the last 100 schedules (at least as many as 250ms held: a twentieth of the time
budget, not 1,000)"): long executions wait a twentieth of the budget for a new pair, short
ones a thousand executions. A test with one goroutine and no scheduling choice runs once
(until 100 schedules in a row show nothing new when it draws math/rand values). -schedules N
given runs exactly N schedules (or to a -time given, a bug, or the end of the strategy's
space). A test's line says why it stopped ("stopped: time budget (5s)").

Without -max-steps the step bound adapts: it starts at 100,000 steps and doubles, up to
3,200,000, each time an execution reaches it while its goroutines still change state (sends,
locks, writes) or read their way through memory, so that a long test runs to its end and its
final checks; once executions end by themselves, it grows to at most 4 times the longest of
them. Goroutines that only look at each other's flags are a livelock at the first bound, as
before. -max-steps N fixes the bound at N. Long executions get fewer schedules within the time
budget, and the portfolio's members that need a hundred executions of their own to warm up
(greybox, stride) or whose next level is longer than the budget (IDB) sit out while the time
left holds fewer executions per member than that.

Each test's line says what happened: ok; FAIL with the bug; CUT when executions reached the
step bound (-max-steps) before their end, with how many and what to do; SKIP with the reason
when the exploration was abandoned because an execution blocked outside the engine (a system
call, a socket, an uninstrumented module's lock); skip when the test skipped itself. -json gives
the same as the final event's Status (pass, bug, cut, abandoned, skipped, interrupted, error)
and Reason, a cut or abandoned test's Action being skip; JUnit makes them skipped cases with the
reason, SARIF warnings of the invocation.

Exit status: 0 no bug found (tests cut at the step bound or abandoned do not fail the run, as a
skipped test does not fail go test; the last line counts them), 1 a bug found (even if another
test could not be explored, or the run was interrupted), 2 the tool could not run. A run that a signal interrupted (Ctrl-C, a
CI runner's SIGTERM) before the end of its tests is not a pass: it says which tests it stopped,
marks them in the -junit, -sarif and run-summary outputs, and exits with 128 plus the signal's
number (130 for SIGINT, 143 for SIGTERM).
`

// writeTestFlags lists interleave test's flags with their defaults, as flag.PrintDefaults
// does for the other commands.
func writeTestFlags(w io.Writer) {
	d := parseDefaults()
	flags := []struct{ name, def, what string }{
		{"-run regexp", "all tests", "the tests to explore, as go test -run"},
		{"-skip regexp", "none", "tests to leave out, as go test -skip"},
		{"-strategy name", d.strategy, "the strategy (-param value sets its parameters)"},
		{"-schedules N", strconv.Itoa(d.schedules), "schedules per test (given: exactly N; default: fewer when nothing new comes)"},
		{"-time D", explore.DefaultTime.String() + " without -schedules", "wall-clock budget per test, race-detection phase included (0: none)"},
		{"-total-time D", DefaultTotalTime.String(), "wall-clock budget of the run, shared among the tests when neither -time nor -schedules is given (0: none)"},
		{"-seed S", strconv.FormatUint(d.seed, 10), "the seed of randomized strategies"},
		{"-keep-going", "false", "go on after the first bug, counting buggy schedules"},
		{"-saved", "true", "replay the test's saved schedules (testdata/interleave/<Test>/, the results store's) before exploring"},
		{"-minimize D", d.minimize.String(), "time to minimize a bug's schedule (0: off)"},
		{"-max-steps N", fmt.Sprintf("adaptive, %d to %d", engine.DefaultMaxSteps, engine.MaxAdaptiveSteps), "the step bound of an execution (given: fixed)"},
		{"-fair-steps N", strconv.Itoa(engine.DefaultFairSteps), "steps in a row before a goroutine is made to yield (negative: off)"},
		{"-sleeps mode", d.sleeps, "order: a sleep lets every runnable goroutine run; notice, fail: a runnable goroutine may be delayed past a sleep of up to 10ms, and a bug that needs it is a notice, or a failure"},
		{"-strict-leaks", "false", "goroutines that go on after the test are leaks, not a notice"},
		{"-instrument modules", "none", "modules to instrument besides the main module, testify, golang.org/x/sync and goleak (comma-separated path prefixes)"},
		{"-points mode", d.points, "scheduling points among memory accesses: racy, sync or all"},
		{"-races mode", d.races, "report, fail or off"},
		{"-race-runs N", strconv.Itoa(d.raceRuns), "schedules of the race-detection phase (-points racy)"},
		{"-p N", "the number of CPUs", "test processes at once; a test is split among the processes its share leaves"},
		{"-shard i/n", "none", "explore shard i of n of every test (1 ≤ i ≤ n), for n machines; interleave merge joins their stores"},
		{"-json", "false", "go test -json events"},
		{"-junit file", "none", "also write the results as JUnit XML, for CI systems that read it"},
		{"-sarif file", "none", "also write the bugs and races as SARIF 2.1.0, for code-scanning systems"},
		{"-origin label", "none", "who started the run, recorded in its summary in .interleave/runs (an editor tells its own runs from others by it)"},
		{"-v", "false", "the test binary's output too"},
	}
	fmt.Fprintf(w, "\nFlags (default):\n")
	for _, f := range flags {
		fmt.Fprintf(w, "  %-20s %s (default %s)\n", f.name, f.what, f.def)
	}
}

// parseDefaults is the flags of a command line that sets none.
func parseDefaults() *testFlags {
	f, err := parseTestFlags(nil)
	if err != nil {
		panic(fmt.Sprintf("interleave test: the default flags do not parse: %v", err))
	}
	return f
}
