package engine_test

import (
	"sync"
	"testing"

	"github.com/interleave-dev/interleave/engine"
)

// TestPlateauOfManyInterleavings: a test whose executions are almost all distinct
// interleavings — three goroutines taking a lock ten times each — stops at its plateau once
// its operation pairs stop growing, long before its budget of schedules; measured by the
// interleavings (the plateau's measure before), it never would: each execution is a new one.
func TestPlateauOfManyInterleavings(t *testing.T) {
	body := func(t *engine.T) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		n := 0
		for range 3 {
			engine.WGAdd(&wg, 1, "m.go:1")
			engine.Go(func() {
				for range 10 {
					engine.Lock(&mu, "m.go:2")
					n++
					engine.Unlock(&mu, "m.go:3")
				}
				engine.WGDone(&wg, "m.go:4")
			}, "m.go:5")
		}
		engine.WGWait(&wg, "m.go:6")
	}
	const floor, budget = 100, 20_000
	rep := engine.Explore(body, engine.Config{Strategy: randomStrategy(1), Schedules: budget, Plateau: floor})
	if rep.Stopped != "plateau" || rep.Schedules >= 10*floor || rep.PlateauWindow < floor {
		t.Errorf("stopped %q after %d schedules, %d in a row with nothing new: want the plateau, within %d schedules", rep.Stopped, rep.Schedules, rep.PlateauWindow, 10*floor)
	}
	if rep.Interleavings < rep.Schedules*9/10 || rep.Coverage == 0 {
		t.Errorf("%d distinct interleavings of %d schedules, %d operation pairs: want almost every schedule a new interleaving, and the pairs counted", rep.Interleavings, rep.Schedules, rep.Coverage)
	}
	// An explicit budget is explored whole.
	rep = engine.Explore(body, engine.Config{Strategy: randomStrategy(1), Schedules: 3 * floor})
	if rep.Stopped != "schedules" || rep.Schedules != 3*floor || rep.Coverage != 0 {
		t.Errorf("without a plateau: stopped %q after %d schedules, %d pairs; want the budget of %d, no pairs measured", rep.Stopped, rep.Schedules, rep.Coverage, 3*floor)
	}
}
