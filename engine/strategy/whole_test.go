package strategy_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// TestWholeScheduleSpaceOrdersStarts: the schedule space a systematic search exhausts orders
// goroutine starts, as its claim (engine.WholeScheduleSpace) says: a goroutine whose code
// before its first scheduling point reads what its parent writes after the go statement (a
// plain variable, no point) sees the write in some schedule of the whole space that unbounded
// IPB exhausts. Started by GoAll (an eager start, the papers' create, whose model has no
// visible start), it never does.
func TestWholeScheduleSpaceOrdersStarts(t *testing.T) {
	program := func(start func([]func(), engine.Pos)) func(*engine.T) {
		return func(t *engine.T) {
			var mu sync.Mutex
			var wg sync.WaitGroup
			late := false
			engine.WGAdd(&wg, 1, "w.go:1")
			start([]func(){func() {
				if late { // before G1's first scheduling point
					t.Errorf("G1 started after its parent's next step")
				}
				engine.WGDone(&wg, "w.go:3")
			}}, "w.go:2")
			late = true
			engine.Lock(&mu, "w.go:4")
			engine.Unlock(&mu, "w.go:5")
			engine.WGWait(&wg, "w.go:6")
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
		})
	}
	if !strings.Contains(engine.WholeScheduleSpace, "goroutine starts") || strings.Contains(engine.WholeScheduleSpace, "before its first scheduling point") {
		t.Errorf("the claim %q does not say that it orders goroutine starts", engine.WholeScheduleSpace)
	}
}
