// Package report holds what interleave test and interleave merge both write about a run: the
// outcome of each test, the run's summary in the results store (.interleave/runs), the
// results of a test's worker processes combined into one, and the JUnit XML and SARIF 2.1.0
// reports of the run.
package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/base"
	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/runs"
)

// Outcome is what one test's run came to; package runs reads and writes it, for the debug
// adapter too.
type Outcome = runs.Outcome

// The statuses of a test's run (Outcome.Status). A bug fails the run (exit status 1), an
// error too (2), an interruption makes it 128 plus the signal's number; a test cut or
// abandoned does not fail it, as a skipped test does not fail go test, but is not a pass: it
// is reported as skipped, with the reason, and counted in the run's last line.
const (
	StatusPass        = "pass"        // explored without a bug, every execution to its end
	StatusBug         = "bug"         // a bug found
	StatusCut         = "cut"         // executions cut at the step bound: their ends never ran
	StatusAbandoned   = "abandoned"   // an execution blocked outside the engine: not explored further
	StatusSkipped     = "skipped"     // the test skipped itself
	StatusInterrupted = "interrupted" // a signal stopped the run before the test's end
	StatusError       = "error"       // the test could not be explored
)

// StatusOf says what o came to, and why when it was not explored as asked.
func StatusOf(o Outcome) (status, reason string) {
	e := o.Result
	switch {
	case o.Interrupted:
		return StatusInterrupted, o.Err
	case e != nil && e.Bug != nil:
		return StatusBug, ""
	case o.Err != "":
		return StatusError, o.Err
	case e == nil:
		return StatusError, "no result"
	case e.Stopped == "skipped":
		return StatusSkipped, "the test skipped itself"
	case e.Stopped == "limitation":
		why := "an execution was abandoned"
		if n := len(e.Limitations); n > 0 {
			why = e.Limitations[n-1].Message
		}
		return StatusAbandoned, fmt.Sprintf("abandoned after %d schedule(s), blocked outside the engine: %s", e.Schedules, why)
	case e.Cut > 0:
		return StatusCut, CutReason(e)
	}
	return StatusPass, ""
}

// CutReason says how many of a result's executions were cut at the step bound, and what to do.
func CutReason(e *explore.Event) string {
	share := 100 * float64(e.Cut) / float64(max(e.Schedules, 1))
	pct := fmt.Sprintf("%.0f%%", share)
	if share < 1 {
		pct = "<1%"
	}
	bound := ""
	if e.MaxSteps > 0 {
		bound = fmt.Sprintf(" of %d steps", e.MaxSteps)
	}
	what := "their ends, and the test's checks after them, never ran"
	if e.Cut == 1 {
		what = "its end, and the test's checks after it, never ran"
	}
	return fmt.Sprintf("%s of %s schedule(s) (%s) cut at the step bound%s while their goroutines still changed state: %s; "+
		"raise -max-steps if the test is long, or see whether its goroutines take turns forever (a loop too long, or without end)", base.Thousands(e.Cut), base.Thousands(e.Schedules), pct, bound, what)
}

// NotExplored counts the outcomes cut and abandoned, and says them for the run's last line
// ("" when there are none).
func NotExplored(outcomes []Outcome) (cut, abandoned int, line string) {
	for _, o := range outcomes {
		switch o.Status {
		case StatusCut:
			cut++
		case StatusAbandoned:
			abandoned++
		}
	}
	var parts []string
	if cut > 0 {
		parts = append(parts, fmt.Sprintf("%d test(s) cut at the step bound", cut))
	}
	if abandoned > 0 {
		parts = append(parts, fmt.Sprintf("%d abandoned, blocked outside the engine", abandoned))
	}
	if len(parts) == 0 {
		return 0, 0, ""
	}
	return cut, abandoned, strings.Join(parts, ", ") + ": not explored as asked, reported as skipped (see their lines); not failures"
}

// Config is what the reports say of how the run explored: interleave test's flags, or the
// merged run's.
type Config struct {
	Strategy  string
	Params    map[string]string
	Seed      uint64
	Schedules int
	Points    string // the scheduling-points mode (-points)
	Races     string // report, fail or off (-races)
	// Interrupted is the signal that interrupted the run ("interrupt", "terminated"), ""
	// for a run that went to its end.
	Interrupted string
}

// PlateauText says why an exploration stopped at its plateau (Stopped "plateau"), "" for
// one that did not.
func PlateauText(e *explore.Event) string {
	if e == nil || e.Stopped != "plateau" {
		return ""
	}
	switch {
	case e.OneSchedule && !e.DrewData:
		return "its only schedule: one goroutine and no scheduling choice, explored once"
	case e.OneSchedule:
		return fmt.Sprintf("one goroutine and no scheduling choice; stopped after %d schedules, its math/rand values drawn anew in each: nothing new in the last %d", e.Schedules, e.Plateau)
	}
	text := fmt.Sprintf("stopped: no new operation pair or data race in the last %s schedules", base.Thousands(e.Plateau))
	if e.PlateauFloor > 0 && e.PlateauFloor < engine.DefaultPlateau && e.TimeBudget > 0 {
		// The floor counted in time: long executions (engine/plateau.go).
		d := time.Duration(e.TimeBudget * float64(time.Second) / engine.PlateauTimeShare)
		text += fmt.Sprintf(" (at least as many as %s held: a twentieth of the time budget, not %s)", d.Round(time.Millisecond), base.Thousands(engine.DefaultPlateau))
	}
	return text
}
