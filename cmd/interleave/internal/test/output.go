package test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/base"
	clireport "github.com/interleave-dev/interleave/cmd/interleave/internal/report"
	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/report"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// output writes what interleave test reports: human text (with a live progress line when
// stderr is a terminal) or, with -json, one event per line in go test -json's shape.
type output struct {
	json     bool
	verbose  bool
	stdout   io.Writer
	stderr   io.Writer
	terminal bool
	line     bool // a progress line is on the terminal
	started  time.Time
	strategy string
	// runEmitted is set on a job's output whose -json "run" event the live output wrote
	// when the test started (test_workers.go).
	runEmitted bool
}

func newOutput(f *testFlags, stdout, stderr io.Writer) *output {
	o := &output{json: f.json, verbose: f.verbose, stdout: stdout, stderr: stderr, strategy: f.strategy}
	if file, ok := stderr.(*os.File); ok {
		if st, err := file.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			o.terminal = true
		}
	}
	return o
}

// JSONEvent is go test -json's TestEvent, with Interleave's fields on a test's final event.
type JSONEvent struct {
	Time          time.Time `json:"Time"`
	Action        string    `json:"Action"`
	Package       string    `json:"Package,omitempty"`
	Test          string    `json:"Test,omitempty"`
	Output        string    `json:"Output,omitempty"`
	Elapsed       *float64  `json:"Elapsed,omitempty"`
	Schedules     *int      `json:"Schedules,omitempty"`
	Buggy         *int      `json:"Buggy,omitempty"`
	Interleavings *int      `json:"Interleavings,omitempty"`
	// Coverage is the number of operation pairs the schedules covered, the default
	// budget's measure of what is new (explore.Event).
	Coverage int               `json:"Coverage,omitempty"`
	Bug      *explore.EventBug `json:"Bug,omitempty"`
	// Races is the number of data races found, Findings the document that lists them.
	Races    *int   `json:"Races,omitempty"`
	Findings string `json:"Findings,omitempty"`
	// Notice is what a person should know about the result that is not a bug (goroutines
	// that went on after the test returned).
	Notice string `json:"Notice,omitempty"`
	// PeakMemory is the exploring test process's peak resident memory in bytes.
	PeakMemory int64 `json:"PeakMemory,omitempty"`
	// MaxGoroutines and MaxSteps are the most goroutines and scheduling steps one execution
	// had.
	MaxGoroutines int `json:"MaxGoroutines,omitempty"`
	MaxSteps      int `json:"MaxSteps,omitempty"`
	// SavedReplayed, SavedFailing and SavedDiverged count the test's saved schedules
	// replayed before its exploration, those that still fail, and those its changed program
	// left (explore.Event).
	SavedReplayed int `json:"SavedReplayed,omitempty"`
	SavedFailing  int `json:"SavedFailing,omitempty"`
	SavedDiverged int `json:"SavedDiverged,omitempty"`
	// SavedSchedules are the outcomes of the saved schedules replayed, one each.
	SavedSchedules []explore.SavedOutcome `json:"SavedSchedules,omitempty"`
	// Interrupted is the signal that stopped the test before its exploration's end
	// ("interrupt", "terminated"), on its "fail" event.
	Interrupted string `json:"Interrupted,omitempty"`
	// Status is what the test came to (report.StatusOf): pass, bug, cut, abandoned, skipped,
	// interrupted or error — a cut or abandoned test's Action is "skip" — and Reason why,
	// for a test not explored as asked.
	Status string `json:"Status,omitempty"`
	Reason string `json:"Reason,omitempty"`
	// Cut is the number of schedules cut at the step bound; Stopped why the exploration
	// stopped ("plateau": Plateau schedules in a row showed nothing new).
	// OneSchedule is set when no execution had a scheduling choice (one goroutine).
	Cut         int    `json:"Cut,omitempty"`
	Stopped     string `json:"Stopped,omitempty"`
	Plateau     int    `json:"Plateau,omitempty"`
	OneSchedule bool   `json:"OneSchedule,omitempty"`
	// TimeBudget is the test's time budget in seconds (0: none), which Stopped "time" says
	// was spent.
	TimeBudget float64 `json:"TimeBudget,omitempty"`
}

func (o *output) emit(e JSONEvent) {
	e.Time = time.Now()
	b, _ := json.Marshal(e)
	fmt.Fprintf(o.stdout, "%s\n", b)
}

func (o *output) status(s string) {
	if o.json || !o.terminal {
		return
	}
	o.clear()
	if s != "" {
		fmt.Fprintf(o.stderr, "%s", s)
		o.line = true
	}
}

func (o *output) clear() {
	if o.line {
		fmt.Fprintf(o.stderr, "\r\033[K")
		o.line = false
	}
}

func (o *output) warn(s string) {
	if o.json {
		o.emit(JSONEvent{Action: "output", Output: s + "\n"})
		return
	}
	o.clear()
	fmt.Fprintln(o.stderr, s)
}

// noTestsToRun says that -run (or -skip) left no test of pkg, as go test does.
func (o *output) noTestsToRun(pkg string) {
	if o.json {
		o.emit(JSONEvent{Action: "output", Package: pkg, Output: "testing: warning: no tests to run\n"})
		o.emit(JSONEvent{Action: "pass", Package: pkg})
		return
	}
	fmt.Fprintf(o.stdout, "ok  \t%s\t[no tests to run]\n", pkg)
}

func (o *output) noTests(pkg string) {
	if o.json {
		o.emit(JSONEvent{Action: "skip", Package: pkg})
		return
	}
	fmt.Fprintf(o.stdout, "?   \t%s\t[no test files]\n", pkg)
}

func (o *output) start(pkg, test string) {
	o.started = time.Now()
	if o.json && o.runEmitted {
		return
	}
	if o.json {
		o.emit(JSONEvent{Action: "run", Package: pkg, Test: test})
		return
	}
	if o.verbose {
		fmt.Fprintf(o.stdout, "=== RUN   %s (%s)\n", test, pkg)
	}
}

func (o *output) progress(e *explore.Event) {
	if o.json {
		// Not an action of go test -json: a consumer that does not know it skips it (the
		// language server shows it as work-done progress).
		elapsed, schedules, interleavings := e.Elapsed, e.Schedules, e.Interleavings
		o.emit(JSONEvent{Action: "progress", Package: e.Package, Test: e.Test, Elapsed: &elapsed, Schedules: &schedules, Interleavings: &interleavings})
		return
	}
	if !o.terminal {
		return
	}
	rate := 0.0
	if e.Elapsed > 0 {
		rate = float64(e.Schedules) / e.Elapsed
	}
	o.status(fmt.Sprintf("%s: %s schedules, %s/s, %s", e.Test, base.Thousands(e.Schedules), base.Thousands(int(rate)), e.Strategy))
}

func (o *output) verboseLog(log string) {
	if o.json || strings.TrimSpace(log) == "" {
		return
	}
	o.clear()
	fmt.Fprintf(o.stdout, "%s", base.IndentLines(strings.TrimRight(log, "\n"), "    ")+"\n")
}

func (o *output) toolError(t testOutcome) {
	elapsed := time.Since(o.started).Seconds()
	msg := fmt.Sprintf("interleave: %s (%s): %s\n", t.Test, t.Package, t.Err)
	if o.json {
		o.emit(JSONEvent{Action: "output", Package: t.Package, Test: t.Test, Output: msg})
		o.emit(JSONEvent{Action: "fail", Package: t.Package, Test: t.Test, Elapsed: &elapsed})
		return
	}
	o.clear()
	fmt.Fprint(o.stderr, msg)
}

func (o *output) result(t testOutcome) {
	e := t.Result
	if o.json {
		if e.Report != "" {
			o.emit(JSONEvent{Action: "output", Package: t.Package, Test: t.Test, Output: e.Report})
		}
		action := "pass"
		switch t.Status {
		case clireport.StatusBug:
			action = "fail"
		case clireport.StatusSkipped, clireport.StatusCut, clireport.StatusAbandoned:
			// Not a pass, not a failure: go test -json's skip, with the status and why.
			action = "skip"
		}
		if t.Reason != "" && action == "skip" {
			o.emit(JSONEvent{Action: "output", Package: t.Package, Test: t.Test, Output: fmt.Sprintf("--- SKIP: %s (%s)\n    %s\n", t.Test, t.Status, t.Reason)})
		}
		o.emit(JSONEvent{Action: action, Package: t.Package, Test: t.Test, Elapsed: &e.Elapsed,
			Schedules: &e.Schedules, Buggy: &e.Buggy, Interleavings: &e.Interleavings, Coverage: e.Coverage, Bug: e.Bug,
			Races: &e.Races, Findings: e.Findings, Notice: e.Notice, PeakMemory: e.PeakMemory,
			MaxGoroutines: e.MaxGoroutines, MaxSteps: e.MaxSteps,
			Status: t.Status, Reason: t.Reason, Cut: e.Cut, Stopped: e.Stopped, Plateau: e.Plateau, OneSchedule: e.OneSchedule, TimeBudget: e.TimeBudget,
			SavedReplayed: e.SavedReplayed, SavedFailing: e.SavedFailing, SavedDiverged: e.SavedDiverged, SavedSchedules: e.SavedSchedules})
		return
	}
	o.clear()
	defer o.saved(e)
	switch {
	case e.Bug != nil:
		fmt.Fprintf(o.stdout, "--- BUG: %s (%s, %.2fs)\n%s", t.Test, t.Package, e.Elapsed, base.IndentLines(strings.TrimRight(e.Report, "\n"), "    ")+"\n")
		o.schedule(e.Bug, e.Trace)
		o.races(e)
		fmt.Fprintf(o.stdout, "FAIL\t%s\t%s\t%s\n", t.Package, t.Test, bugRun(e.Bug.Kind, e.Schedules))
	case t.Status == clireport.StatusSkipped:
		fmt.Fprintf(o.stdout, "skip\t%s\t%s\n", t.Package, t.Test)
	case t.Status == clireport.StatusAbandoned:
		// Not explored, not failed: the reason (the module to instrument, the system call).
		fmt.Fprintf(o.stdout, "SKIP\t%s\t%s\t%s\t%.2fs\n", t.Package, t.Test, t.Reason, e.Elapsed)
		o.races(e)
	default:
		rate := 0.0
		if e.Elapsed > 0 {
			rate = float64(e.Schedules) / e.Elapsed
		}
		what := fmt.Sprintf("no bug in %s schedules, %s distinct interleavings", base.Thousands(e.Schedules), base.Thousands(e.Interleavings))
		if e.Coverage > 0 && !e.OneSchedule {
			// What the schedules covered, by the plateau's measure (a test with one schedule
			// has nothing to cover between schedules).
			what += fmt.Sprintf(", %s operation pairs", base.Thousands(e.Coverage))
		}
		if e.Races > 0 {
			what += fmt.Sprintf(", %d racy pair(s)", e.Races)
		}
		what += fmt.Sprintf(" (%s, %s/s)", e.Strategy, base.Thousands(int(rate)))
		if e.Exhausted != "" {
			what += ": " + e.Exhausted
		}
		if p := clireport.PlateauText(e); p != "" {
			what += plateauSep(e) + p
		} else if s := report.Stopped(e.Stopped, time.Duration(e.TimeBudget*float64(time.Second))); s != "" {
			what += "; " + s
		}
		status := "ok  "
		if t.Status == clireport.StatusCut {
			// Not ok: the executions cut never reached the test's checks.
			status, what = "CUT ", what+"; but "+t.Reason
		}
		fmt.Fprintf(o.stdout, "%s\t%s\t%s\t%s\t%.2fs\n", status, t.Package, t.Test, what, e.Elapsed)
		for _, l := range e.Limitations {
			fmt.Fprintf(o.stdout, "    limitation: %s\n", l.Message)
		}
		o.races(e)
	}
}

// interrupted reports a test that a signal stopped before its exploration's end, without a
// bug: not a pass. As go test -json reports a test binary a signal ended, its final event is
// a "fail" after the output "signal: …", with what it explored before.
func (o *output) interrupted(t testOutcome, signal string) {
	e := t.Result
	if o.json {
		o.emit(JSONEvent{Action: "output", Package: t.Package, Test: t.Test, Output: "signal: " + signal + "\n"})
		ev := JSONEvent{Action: "fail", Package: t.Package, Test: t.Test, Interrupted: signal}
		if e != nil {
			ev.Elapsed, ev.Schedules, ev.Buggy, ev.Interleavings = &e.Elapsed, &e.Schedules, &e.Buggy, &e.Interleavings
			ev.Races, ev.Findings, ev.Notice, ev.PeakMemory = &e.Races, e.Findings, e.Notice, e.PeakMemory
		} else {
			elapsed := time.Since(o.started).Seconds()
			ev.Elapsed = &elapsed
		}
		o.emit(ev)
		return
	}
	o.clear()
	if e == nil {
		fmt.Fprintf(o.stdout, "FAIL\t%s\t%s\tinterrupted (signal: %s) before its result: not explored to the end\t%.2fs\n", t.Package, t.Test, signal, time.Since(o.started).Seconds())
		return
	}
	fmt.Fprintf(o.stdout, "FAIL\t%s\t%s\tinterrupted (signal: %s) after %s schedule(s) without a bug, %s distinct interleavings: not explored to the end\t%.2fs\n",
		t.Package, t.Test, signal, base.Thousands(e.Schedules), base.Thousands(e.Interleavings), e.Elapsed)
	o.races(e)
}

// interruptedRun ends the output of a run that a signal interrupted: how many tests it
// stopped and did not start.
func (o *output) interruptedRun(signal string, stopped, notStarted int) {
	msg := fmt.Sprintf("interrupted (signal: %s): %d test(s) stopped before the end of their exploration, %d not started; the results are incomplete\n", signal, stopped, notStarted)
	if o.json {
		o.emit(JSONEvent{Action: "output", Output: msg})
		return
	}
	o.clear()
	fmt.Fprintf(o.stdout, "FAIL\t%s", msg)
}

// notExploredRun ends the output of a run some of whose tests were cut or abandoned: how many,
// in one line (they do not fail the run).
func (o *output) notExploredRun(line string) {
	if o.json {
		o.emit(JSONEvent{Action: "output", Output: "interleave: " + line + "\n"})
		return
	}
	o.clear()
	fmt.Fprintf(o.stdout, "SKIP\t%s\n", line)
}

// races prints the data races of a test's result, one line each, from its findings document.
func (o *output) races(e *explore.Event) {
	if e.Races == 0 || e.Findings == "" {
		return
	}
	f, err := findings.Load(e.Findings)
	if err != nil {
		fmt.Fprintf(o.stdout, "    %d data race(s); their findings are not readable: %v\n", e.Races, err)
		return
	}
	fmt.Fprintf(o.stdout, "    %d data race(s) (findings, not failures; interleave races shows their stacks):\n", len(f.Races))
	for _, r := range f.Races {
		fmt.Fprintf(o.stdout, "      %s %s (G%d) and %s %s (G%d), seen in %s schedule(s)\n",
			r.A.Op, r.A.Pos, r.A.Goroutine, r.B.Op, r.B.Pos, r.B.Goroutine, base.Thousands(r.Schedules))
	}
}

// maxShownSteps bounds the schedule printed after a bug; replay shows it all.
const maxShownSteps = 200

// schedule prints the saved schedule of a bug, step by step, or, when it could not be saved,
// the schedule the test process sent (trace), in full.
func (o *output) schedule(b *explore.EventBug, trace []schedule.Step) {
	if b.Schedule == "" && len(trace) > 0 {
		fmt.Fprintf(o.stdout, "    the schedule (not saved; every step, to replay by hand or save again):\n")
		var buf strings.Builder
		report.WriteSchedule(&buf, trace)
		fmt.Fprint(o.stdout, base.IndentLines(strings.TrimRight(buf.String(), "\n"), "    ")+"\n")
		return
	}
	f, err := schedule.Load(b.Schedule)
	if err != nil {
		fmt.Fprintf(o.stdout, "    (schedule not readable: %v)\n", err)
		return
	}
	steps := f.Steps
	runs := 0
	for _, s := range steps {
		if s.Kind == schedule.Run {
			runs++
		}
	}
	fmt.Fprintf(o.stdout, "    the schedule (%d steps, %d preemption(s)):\n", runs, b.Preemptions)
	var buf strings.Builder
	first := 1
	if runs > maxShownSteps {
		first = runs - maxShownSteps + 1
		fmt.Fprintf(o.stdout, "    ... the first %d steps are not shown: interleave replay %s shows them\n", runs-maxShownSteps, b.Schedule)
		n := 0
		for i, s := range steps {
			if s.Kind == schedule.Run {
				n++
			}
			if n > runs-maxShownSteps {
				steps = steps[i:]
				break
			}
		}
	}
	report.WriteScheduleFrom(&buf, steps, first)
	fmt.Fprint(o.stdout, base.IndentLines(strings.TrimRight(buf.String(), "\n"), "  ")+"\n")
}

// bugRun is the end of a FAIL line: the bug's kind and the schedules the run tried in all
// (with workers, all of theirs). It says "after" no more: the bug's report above it says after
// how many schedules the bug was found ("found by portfolio after 2 schedule(s)"), and the
// line said "bug after 4 schedule(s)" under it, the workers' sum.
func bugRun(kind string, schedules int) string {
	return fmt.Sprintf("%s bug, %s schedule(s) run", kind, base.Thousands(schedules))
}

// plateauSep joins a test's line to why its exploration stopped at its plateau: "; " before
// "stopped: …", as the other reasons to stop, ": " before the description of a test with one
// schedule.
func plateauSep(e *explore.Event) string {
	if e.OneSchedule {
		return ": "
	}
	return "; "
}
