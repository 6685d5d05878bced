package engine_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/interleave-dev/interleave/engine"
)

// stress is a stress-style test: workers goroutines each make n locked increments of a shared
// counter, and the test checks the total once they are done. Its bug shows only at that final
// check: each worker calls Done before its last increment, so the test may read the counter
// while increments are still to come.
func stress(workers, n int) func(*engine.T) {
	return func(t *engine.T) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		counter := 0
		for range workers {
			engine.WGAdd(&wg, 1, "s.go:1")
			engine.Go(func() {
				for i := range n {
					if i == n-1 {
						engine.WGDone(&wg, "s.go:3") // the bug: before the last increment
					}
					engine.Lock(&mu, "s.go:4")
					v := engine.Load(&counter, "s.go:5")
					engine.Store(&counter, v+1, "s.go:6")
					engine.Unlock(&mu, "s.go:7")
				}
			}, "s.go:2")
		}
		engine.WGWait(&wg, "s.go:8")
		engine.Lock(&mu, "s.go:9")
		got := engine.Load(&counter, "s.go:10")
		engine.Unlock(&mu, "s.go:11")
		if got != workers*n {
			t.Errorf("counter = %d, want %d", got, workers*n)
		}
	}
}

// TestAdaptiveStepBoundRunsLongTestsToTheirEnd: a stress test of 8 goroutines × 20,000 locked
// increments takes about 640,000 steps, past the default step bound. With a fixed bound there
// (what the default was) every execution is cut and the final check, where the bug shows,
// never runs; with the adaptive bound (MaxSteps 0) every execution ends by itself, none is
// cut, and the bug is found.
func TestAdaptiveStepBoundRunsLongTestsToTheirEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs executions of 640,000 steps")
	}
	const schedules = 6
	body := stress(8, 20_000)

	fixed := engine.Explore(body, engine.Config{Strategy: randomStrategy(1), Schedules: schedules, MaxSteps: engine.DefaultMaxSteps, KeepGoing: true})
	if fixed.StepBound != schedules || fixed.First != nil {
		t.Errorf("fixed bound %d: %d of %d executions cut, bug %v: want every one cut and no bug found (the check never ran)",
			engine.DefaultMaxSteps, fixed.StepBound, schedules, bugOf(fixed))
	}

	ended := 0 // executions whose test body returned
	rep := engine.Explore(body, engine.Config{Strategy: randomStrategy(1), Schedules: schedules, KeepGoing: true,
		OnExecution: func(n int, r *engine.Result) {
			if !r.StepBound && (r.Bug == nil || r.Bug.Kind == engine.Fail) {
				ended++
			}
		}})
	if rep.StepBound != 0 || rep.Schedules != schedules || ended != schedules {
		t.Errorf("adaptive bound: %d of %d executions cut, %d ended: want none cut and all %d ended", rep.StepBound, rep.Schedules, ended, schedules)
	}
	if rep.MaxSteps <= engine.DefaultMaxSteps {
		t.Errorf("the longest execution took %d steps, want more than the default bound %d", rep.MaxSteps, engine.DefaultMaxSteps)
	}
	if rep.First == nil || rep.First.Bug.Kind != engine.Fail || !strings.Contains(rep.First.Bug.Message, "want 160000") {
		t.Errorf("adaptive bound: bug %v, want the final check's failure (counter below 160000)", bugOf(rep))
	}
}

// TestAdaptiveStepBoundKeepsLivelockEvidence: the bound grows only while an execution shows
// no evidence of a livelock. Goroutines spinning on each other's flags are a livelock at the
// first bound, as with a fixed one; a producer that never stops (sends forever) runs to the
// adaptive bound's limit and is cut there, a notice, never a bug; a short test's bound stays
// the default, so that once an execution ended by itself, one that goes on forever is cut at
// the default again.
func TestAdaptiveStepBoundKeepsLivelockEvidence(t *testing.T) {
	if testing.Short() {
		t.Skip("runs an execution to the adaptive bound's limit")
	}
	spin := func(t *engine.T) {
		var a, b bool
		engine.Go(func() {
			for !engine.Load(&b, "s.go:2") {
			}
			engine.Store(&a, true, "s.go:3")
		}, "s.go:1")
		for !engine.Load(&a, "s.go:4") {
		}
		engine.Store(&b, true, "s.go:5")
	}
	rep := engine.Explore(spin, engine.Config{Strategy: randomStrategy(1), Schedules: 1})
	if rep.First == nil || rep.First.Bug.Kind != engine.Livelock || rep.First.Bug.Step != engine.DefaultMaxSteps {
		t.Errorf("goroutines spinning on each other: %v, want a livelock at step %d", bugOf(rep), engine.DefaultMaxSteps)
	}

	// forever sends without end when told to; otherwise it sends ten values.
	forever := func(endless bool) func(*engine.T) {
		return func(t *engine.T) {
			c := engine.MakeChan[int](0, "f.go:1")
			engine.Go(func() {
				for i := 0; endless || i < 10; i++ {
					engine.Send(c, i, "f.go:3")
				}
				engine.Close(c, "f.go:4")
			}, "f.go:2")
			for {
				if _, ok := engine.Recv2(c, "f.go:5"); !ok {
					return
				}
			}
		}
	}
	rep = engine.Explore(forever(true), engine.Config{Strategy: randomStrategy(1), Schedules: 1})
	if rep.First != nil || rep.StepBound != 1 || rep.MaxSteps != engine.MaxAdaptiveSteps {
		t.Errorf("a producer that never stops: bug %v, %d cut, %d steps: want no bug, cut at %d steps", bugOf(rep), rep.StepBound, rep.MaxSteps, engine.MaxAdaptiveSteps)
	}
	// Once an execution of the test ended by itself (ten values), the limit is AdaptiveFactor
	// times its length, no less than the default: an endless one is cut at the default.
	n := 0
	rep = engine.Explore(func(t *engine.T) { n++; forever(n > 1)(t) }, engine.Config{Strategy: randomStrategy(1), Schedules: 2})
	if rep.First != nil || rep.StepBound != 1 || rep.StepBoundAt != 2 || rep.MaxSteps != engine.DefaultMaxSteps {
		t.Errorf("endless after a short execution: bug %v, %d cut (first the %dth), %d steps: want the 2nd cut at %d steps", bugOf(rep), rep.StepBound, rep.StepBoundAt, rep.MaxSteps, engine.DefaultMaxSteps)
	}
}
