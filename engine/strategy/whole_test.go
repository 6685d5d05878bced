package strategy_test

import (
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// TestWholeScheduleSpaceOrdersStarts: the schedule space a systematic search exhausts orders
// the start of a goroutine that does something observable before its first scheduling point,
// as its claim (engine.WholeScheduleSpace) says: a goroutine whose first act is a t.Log may
// run it after its test returned (Go panics), which some schedule of the whole space that
// unbounded IPB exhausts does. Started by GoAll (an eager start, the papers' create, whose
// model has no visible start), it never does.
func TestWholeScheduleSpaceOrdersStarts(t *testing.T) {
	program := func(start func([]func(), engine.Pos)) func(*engine.T) {
		return func(t *engine.T) {
			start([]func(){func() { t.Log("started") }}, "w.go:1")
			engine.Gosched("w.go:2")
		}
	}
	goStmt := func(fs []func(), pos engine.Pos) { engine.Go(fs[0], pos) }
	for _, tc := range []struct {
		name  string
		start func([]func(), engine.Pos)
		buggy bool
	}{
		{"go statement", goStmt, true},
		{"GoAll", engine.GoAll, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, rep := explore(t, program(tc.start), strategy.NewIPB(-1), 1000)
			if rep.Stopped != "exhausted" || !strings.HasSuffix(rep.Exhausted, engine.WholeScheduleSpace) {
				t.Fatalf("stopped %q: %q; want the whole schedule space exhausted", rep.Stopped, rep.Exhausted)
			}
			if (rep.Buggy > 0) != tc.buggy {
				t.Errorf("%d buggy of %d schedules; want buggy ones: %v", rep.Buggy, rep.Schedules, tc.buggy)
			}
			if tc.buggy && (rep.First == nil || !strings.Contains(rep.First.Bug.Message, "Log in goroutine after")) {
				t.Errorf("first bug %v: want the log after the test returned", rep.First)
			}
		})
	}
	if !strings.Contains(engine.WholeScheduleSpace, "starts of goroutines") || strings.Contains(engine.WholeScheduleSpace, "before its first scheduling point, which runs") {
		t.Errorf("the claim %q does not say that it orders goroutine starts", engine.WholeScheduleSpace)
	}
}
