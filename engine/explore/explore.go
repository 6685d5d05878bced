// Package explore is the API a Go test calls to explore its interleavings under the
// controlled scheduler: it runs the test's body once per schedule, reports the first schedule
// that fails with a schedule file that replays it exactly, and writes the findings (data
// races, the bug) to the results store.
//
//	func TestTransfer(t *testing.T) {
//		explore.Test(t, func(t *explore.T) {
//			... code written against the engine's API (or rewritten to it by the instrumenter) ...
//		})
//	}
//
// Each schedule runs the body once, on goroutines the engine controls; the body gets a
// per-schedule *explore.T whose Error, Fatal, Log, Cleanup and TempDir mean what they mean
// on a *testing.T. When a schedule fails, Test fails the real test with the bug — its kind,
// message, position, every goroutine's stack — and the path of the saved schedule file, and
// running the test again with INTERLEAVE_REPLAY=<file> replays exactly that schedule.
//
// Environment variables override the options, so that a test can be explored harder or
// replayed without editing it: INTERLEAVE_STRATEGY (a strategy name, with parameters as
// "pct:d=2"), INTERLEAVE_SCHEDULES, INTERLEAVE_SEED, INTERLEAVE_REPLAY; the interleave
// command sets the others (env.go). Without an explicit budget (Schedules,
// INTERLEAVE_SCHEDULES), an exploration whose executions stop showing anything new stops
// early (Plateau; INTERLEAVE_PLATEAU=true or false decides it either way). Tests that the instrumenter rewrote reach this package
// through package harness.
//
// The package, like the engine, uses the standard library only.
package explore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/minimize"
	"github.com/interleave-dev/interleave/engine/report"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/srcmap"
	"github.com/interleave-dev/interleave/engine/store"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// T is the per-schedule test handle.
type T = engine.T

// Report summarizes an exploration.
type Report = engine.Report

// Test runs body once per schedule until a bug, the budget, or the end of the strategy's
// space, and fails t with the first bug found. It returns the exploration's report.
func Test(t testing.TB, body func(*T), opts ...Option) *Report {
	t.Helper()
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	return run(t, body, o)
}

func run(t testing.TB, body func(*T), o options) *Report {
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
	o.budget = o.config.Schedules
	if root, err := store.WorkingModule(); err == nil {
		o.config.Root = root // bug positions relative to the module, as operations' are
	}
	info := store.TestInfo(t.Name())
	// Every execution starts from the package variables as they are now (engine/state.go).
	engine.SnapshotState()
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
	if !o.part.Whole() {
		// INTERLEAVE_SCHEDULES is the whole run's budget. Every part starts on the same tree
		// (the same detection phase); a race first seen in a part makes its accesses points
		// in that part, as in a whole run, and the part reports the points it ended on.
		total := o.config.Schedules
		if o.lockstep != "" {
			// In step with the other parts, which make the same points: the strategy stops
			// every part at the whole run's budget.
			if err := lockstep(s, &o); err != nil {
				fail(nil, "%v", err)
			}
			// The parts stop together, at the run's budget: not each at its own plateau.
			o.config.Schedules, o.config.Plateau = 0, 0
		} else {
			if err := strategy.Partition(s, o.part); err != nil {
				fail(nil, "%v", err)
			}
			o.config.Schedules = o.part.Share(total)
		}
		o.config.Fingerprints = true
		if o.events != nil {
			o.events.part = o.part.String()
		}
		if total > 0 && o.config.Schedules == 0 && o.lockstep == "" {
			// More parts than schedules: this one has none.
			o.events.write(resultEvent(t.Name(), info, &Report{Strategy: s.Name(), Stopped: "schedules"}))
			return &Report{Strategy: s.Name(), Stopped: "schedules"}
		}
	}
	o.config.Strategy = s
	if os.Getenv("INTERLEAVE_CLI") != "" && o.config.Context == nil {
		// Run by the interleave command, which interrupts a test it stops (Ctrl-C, another
		// part found the bug): the exploration ends after the execution under way and
		// reports what it found, as a canceled result.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		o.config.Context = ctx
	}
	start := time.Now()
	timeBudget := o.config.Time // the test's, detection phase included
	if o.config.Plateau > 0 && timeBudget > 0 {
		// The plateau's floor is counted in time too: long executions wait a twentieth of
		// the budget for a new pair, not a thousand executions (engine/plateau.go).
		o.config.PlateauTime = timeBudget / engine.PlateauTimeShare
	}
	var detect *Report
	if o.config.Points == engine.PointsRacy && o.config.RacyPoints == nil {
		var err error
		if detect, err = detectRaces(body, &o); err != nil {
			fail(detect, "%v", err)
		}
		o.config.RacyPoints = racyPositions(detect.Races)
		if budget := o.config.Time; budget > 0 {
			// The exploration has what the detection phase left of the test's budget.
			o.config.Time = max(budget-time.Since(start), budget/4)
		}
	}
	// The schedule file of the first bug is made while the strategy still describes that
	// execution (its Params, its seed).
	var file *schedule.File
	progress := o.progress(t.Name(), start)
	o.config.OnExecution = func(n int, r *engine.Result) {
		if r.Bug != nil && file == nil {
			file = engine.NewScheduleFile(r, info, s, n)
			file.Points = o.config.Points.String() // and NewScheduleFile set the execution's racy points
		}
		progress(n, r)
	}
	var rep *Report
	saved, savedFails := replaySaved(body, &o, info, t.Name())
	if saved != nil {
		if o.events != nil {
			o.events.saved = saved
		}
		t.Logf("interleave: %s", saved.line())
	}
	savedPath := "" // the saved schedule that still fails, reported as it is
	if savedFails != nil {
		rep, savedPath = savedFails.report, savedFails.path
		if savedPath == "" {
			file = savedFails.file
		}
	} else {
		rep = engine.Explore(body, o.config)
	}
	mergeDetected(rep, detect, o.part.First())
	// The findings document is written whatever the outcome, with the bug's schedule once
	// it is saved: before the result event that names it, so that the event never names
	// the document of an earlier run when this one could not be written.
	var bugPath string
	findingsSaved := false
	saveTheFindings := func() (string, error) {
		findingsSaved = true
		if o.events == nil && !o.config.Races {
			return "", nil
		}
		return saveFindings(&o, info, rep, detect, bugPath)
	}
	defer func() {
		if !findingsSaved {
			if _, err := saveTheFindings(); err != nil {
				t.Logf("interleave: %v", err)
			}
		}
	}()
	withFindings := func(e *Event) *Event {
		e.Points = o.config.Points.String()
		e.TimeBudget = timeBudget.Seconds()
		if !o.part.Whole() && o.config.Points == engine.PointsRacy {
			e.RacyPoints = rep.RacyPoints
		}
		e.Races = len(rep.Races)
		if detect != nil {
			e.DetectionSchedules = detect.Schedules
		}
		switch path, err := saveTheFindings(); {
		case err != nil:
			t.Logf("interleave: %v", err)
			e.Notice = strings.TrimPrefix(e.Notice+"\n", "\n") + fmt.Sprintf("the findings of this run were not written: %v", err)
		case path != "":
			e.Findings = path
		}
		return e
	}
	switch {
	case rep.Err != nil:
		fail(rep, "%s: %v", s.Name(), rep.Err)
	case rep.Stopped == "limitation" && rep.First == nil:
		// An execution blocked outside the engine's control (a real system call, a socket,
		// an uninstrumented module's lock) was abandoned, and the exploration with it: a
		// limitation of the tool, not a bug of the program, and not a pass either — the test
		// is skipped with the reason, as the interleave command reports it. (An abandoned
		// execution hides no bug found before it, -keep-going: that bug is reported below,
		// with the limitation among the event's.)
		msg := rep.Limitations[len(rep.Limitations)-1].Message
		o.events.write(withFindings(resultEvent(t.Name(), info, rep)))
		t.Skipf("interleave: abandoned after %d schedule(s): %s", rep.Schedules, msg)
	case rep.Stopped == "skipped":
		o.events.write(withFindings(resultEvent(t.Name(), info, rep)))
		t.Skipf("interleave: the test skipped itself")
	case rep.First != nil:
		path, saveErr := savedPath, error(nil)
		if path == "" {
			if path, saveErr = store.SaveSchedule(o.dir, file); saveErr != nil {
				t.Errorf("interleave: %v", saveErr)
			}
		}
		bugPath = path
		before, after := 0, 0
		if saveErr == nil && o.minimize > 0 && savedPath == "" {
			var merr error
			if before, after, merr = minimizeSchedule(body, file, path, minimize.Options{Time: o.minimize, Root: o.config.Root}); merr != nil {
				t.Logf("interleave: minimize: %v", merr)
				before, after = 0, 0
			}
		}
		// A bug that is not the program's is reported as a notice: the run passes, the
		// findings hold no bug, the schedule is kept.
		demote := func(notice string) *Report {
			rep.First, rep.FirstAt, bugPath = nil, 0, ""
			e := withFindings(resultEvent(t.Name(), info, rep))
			e.Notice = strings.TrimPrefix(e.Notice+"\n", "\n") + notice
			o.events.write(e)
			t.Logf("interleave: %s", e.Notice)
			return rep
		}
		if b := rep.First.Bug; rep.First.MeasuredMemory && b.Kind == engine.Fail {
			msg, _, _ := strings.Cut(strings.TrimSpace(b.Message), "\n")
			return demote(fmt.Sprintf("a fail (%s) was seen in schedule %d of an execution that counted allocations "+
				"(runtime.ReadMemStats, testing.AllocsPerRun): the instrumentation allocates where the program does not, so the counts differ from go test's, "+
				"and it is not reported as a bug; its schedule is kept in %s", msg, rep.FirstAt, path))
		}
		// A saved schedule that fails again is confirmed as a new bug is: what fails in this
		// process after other executions (the race detector's first look, other saved
		// schedules) may be what they left behind, not the program's bug.
		if saveErr == nil && o.confirm {
			switch outcome, err := confirm(t.Name(), path); {
			case err != nil:
				// Nothing is known: the bug is reported, as without confirmation.
				t.Logf("interleave: %v", err)
			case outcome != "":
				return demote(unconfirmed(rep.First.Bug, rep.FirstAt, outcome, path))
			}
		}
		e := withFindings(resultEvent(t.Name(), info, rep))
		e.Bug = bugEvent(rep.First, path)
		if saveErr != nil && file != nil {
			// Nothing is lost: the schedule goes to the command in the event, to be printed
			// in full.
			e.Trace = file.Steps
			e.Error = saveErr.Error()
		}
		if after < before {
			e.Bug.Preemptions, e.Bug.FoundPreemptions = after, before
		}
		e.Report = report.FormatFailure(rep, path, t.Name())
		if savedFails != nil {
			e.Report = fmt.Sprintf("a saved schedule still fails (%s): the bug is not fixed\n", saved.line()) + e.Report
		}
		if e.Bug.FoundPreemptions > 0 {
			e.Report += fmt.Sprintf("minimized: %d preemption(s) as found, %d in the saved schedule\n", e.Bug.FoundPreemptions, e.Bug.Preemptions)
		}
		o.events.write(e)
		t.Errorf("%s", e.Report)
	default:
		o.events.write(withFindings(resultEvent(t.Name(), info, rep)))
		if testing.Verbose() {
			t.Logf("interleave: %s", report.Summary(rep))
		}
	}
	return rep
}

// replay runs the schedule file o.replay once and fails t unless it reproduces its bug. A
// file recorded by other code (the test changed since, or was fixed) is replayed anyway, up
// to the first divergence, with a notice saying so; a bug that no longer happens under the
// schedule then passes. INTERLEAVE_REPLAY_STRICT=1 refuses such a file instead.
func replay(t testing.TB, body func(*T), o options, info schedule.Test) *Report {
	t.Helper()
	f, err := schedule.Load(o.replay)
	var changed error // the code changed since the schedule was recorded
	if err == nil {
		relativeBug(f, o.config.Root)
		err = f.Check(info)
		if errors.Is(err, schedule.ErrOtherBuild) && !o.strict {
			changed, err = err, nil
		}
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
	// The schedule's positions as they are in the source now: comments, blank lines,
	// reformatting and edits elsewhere moved them, and no more.
	f, moved := srcmap.Relocate(f, o.config.Root)
	o.config.UseFile(f) // validated by Load
	r := engine.Run(body, strategy.NewReplayFile(f), o.config)
	rep := &Report{Strategy: "replay", Schedules: 1, First: r, FirstAt: 1, Stopped: "bug"}
	e := resultEvent(t.Name(), info, rep)
	e.Trace = r.Schedule
	if changed != nil {
		e.Notice = fmt.Sprintf("%v; replaying it anyway, up to the first divergence", changed)
		t.Logf("interleave: %s", e.Notice)
	}
	err = engine.CheckReproduced(f, r)
	if err != nil && changed != nil && r.Bug == nil && r.Err == nil && r.Limitation == nil && f.Bug != nil {
		// The fix the developer made: the schedule runs to its end without the bug.
		e.Notice += fmt.Sprintf("\nthe %s the schedule recorded no longer happens under it", f.Bug.Kind)
		err = nil
	}
	var d *strategy.DivergenceError
	if err != nil && (changed != nil || moved.SourceChanged()) && errors.As(r.Err, &d) {
		// Not nondeterminism: the program is another one.
		err = fmt.Errorf("replay of %s: %s", o.replay, sourceChanged(d, moved))
	} else if err != nil && changed != nil {
		err = fmt.Errorf("%w (the code changed since the schedule was recorded)", err)
	}
	if err != nil {
		e.Stopped, e.Error = "error", err.Error()
		o.events.write(e)
		t.Fatalf("interleave: %v", err)
	}
	if r.Bug != nil {
		e.Bug = bugEvent(r, o.replay)
		e.Report = report.FormatFailure(rep, o.replay, "")
		t.Errorf("%s", e.Report)
	} else {
		e.Stopped = "passed"
	}
	o.events.write(e)
	return rep
}

// relativeBug makes the bug position of a schedule file written before bug positions were
// module-relative (an absolute path in this module) relative, as a replay reports it.
func relativeBug(f *schedule.File, root string) {
	if f.Bug != nil {
		f.Bug.Pos = engine.RelativePos(root, f.Bug.Pos)
	}
}
