package explore_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/explore"
)

// stress is a stress-style test: 8 goroutines each make 20,000 locked increments of a counter
// (about 640,000 steps an execution, past the adaptive bound's start), and the test checks the
// total at its end. With early, each goroutine calls Done before its last increment: the bug
// shows only at that final check.
func stress(early bool) func(*explore.T) {
	const workers, n = 8, 20_000
	return func(t *explore.T) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		counter := 0
		for range workers {
			engine.WGAdd(&wg, 1, "s.go:1")
			engine.Go(func() {
				for i := range n {
					if early && i == n-1 {
						engine.WGDone(&wg, "s.go:3")
					}
					engine.Lock(&mu, "s.go:4")
					v := engine.Load(&counter, "s.go:5")
					engine.Store(&counter, v+1, "s.go:6")
					engine.Unlock(&mu, "s.go:7")
				}
				if !early {
					engine.WGDone(&wg, "s.go:8")
				}
			}, "s.go:2")
		}
		engine.WGWait(&wg, "s.go:9")
		engine.Lock(&mu, "s.go:10")
		got := engine.Load(&counter, "s.go:11")
		engine.Unlock(&mu, "s.go:12")
		if got != workers*n {
			t.Errorf("counter = %d, want %d", got, workers*n)
		}
	}
}

// TestDefaultBudgetEndsALongTest: with no budget given, a long stress test ends by itself at
// its default time budget (the reason it stopped, not a measured time, is what is checked),
// every execution run to its end (none cut at the step bound), and the result event says the
// budget; the same test with its bug has the bug found at its final check.
func TestDefaultBudgetEndsALongTest(t *testing.T) {
	if testing.Short() {
		t.Skip("explores for the default time budget")
	}
	var events strings.Builder
	r, rep := exploreOn(t, "TestStress", stress(false), explore.EventLog(&events), explore.ScheduleDir(t.TempDir()))
	if len(r.errors) != 0 || rep == nil {
		t.Fatalf("errors %q", r.errors)
	}
	if rep.Stopped != "time" || rep.StepBound != 0 || rep.Schedules == 0 || rep.MaxSteps <= engine.DefaultMaxSteps {
		t.Errorf("stopped %q after %d schedules, %d cut, longest %d steps: want stopped by the time budget, none cut, executions past %d steps",
			rep.Stopped, rep.Schedules, rep.StepBound, rep.MaxSteps, engine.DefaultMaxSteps)
	}
	var e explore.Event
	if err := json.Unmarshal([]byte(lastLine(events.String())), &e); err != nil {
		t.Fatalf("the result event: %v\n%s", err, events.String())
	}
	if e.Stopped != "time" || e.TimeBudget != explore.DefaultTime.Seconds() || e.Cut != 0 || strings.Contains(e.Notice, "step bound") {
		t.Errorf("result event: stopped %q, budget %vs, %d cut, notice %q: want stopped by the %v budget, none cut, no step-bound notice", e.Stopped, e.TimeBudget, e.Cut, e.Notice, explore.DefaultTime)
	}

	r, rep = exploreOn(t, "TestStressBug", stress(true), explore.ScheduleDir(t.TempDir()))
	if rep == nil || rep.First == nil || rep.First.Bug.Kind != engine.Fail || !strings.Contains(rep.First.Bug.Message, "want 160000") || rep.StepBound != 0 {
		t.Errorf("the stress test with its bug: %v, %d cut: want the final check's failure, none cut", bugOf(rep), rep.StepBound)
	}
}

func bugOf(rep *explore.Report) *engine.Bug {
	if rep == nil || rep.First == nil {
		return nil
	}
	return rep.First.Bug
}
