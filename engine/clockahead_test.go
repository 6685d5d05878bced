package engine_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// breakerInParallel is the shape of a published circuit breaker's parallel test: each request
// reads the clock to see whether the breaker's 30-second interval has passed (and, if it
// has, starts a new generation, clearing the counts), counts itself under the breaker's lock,
// and reports on a channel; the test checks the counts once every request is in. Natively the
// requests take milliseconds and the interval never passes. It takes about 120,000 steps.
func breakerInParallel(t *engine.T) {
	const workers, requests = 4, 5_000
	var mu sync.Mutex
	expiry := engine.Now().Add(30 * time.Second)
	count := 0
	ch := engine.MakeChan[int](0, "b.go:1")
	for range workers {
		engine.Go(func() {
			for range requests {
				engine.Lock(&mu, "b.go:2")
				if now := engine.Now(); now.After(expiry) {
					count, expiry = 0, now.Add(30*time.Second) // a new generation
				}
				count++
				engine.Unlock(&mu, "b.go:3")
				engine.Send(ch, 1, "b.go:4")
			}
		}, "b.go:5")
	}
	for range workers * requests {
		engine.Recv(ch, "b.go:6")
	}
	engine.Lock(&mu, "b.go:7")
	defer engine.Unlock(&mu, "b.go:8")
	if count != workers*requests {
		t.Errorf("count = %d, want %d", count, workers*requests)
	}
}

// TestClockAheadOfWorkIsANotice: a program that works and reads the clock at every step sees
// time run ever faster (clock.go: only a program that looks and does nothing else should),
// so past some tens of thousands of steps the breaker's interval passes in the middle of its
// requests, which it never does natively. Such a failure depends on how fast the virtual
// clock ran, not on the schedule: it is a notice saying so, not a bug.
func TestClockAheadOfWorkIsANotice(t *testing.T) {
	if testing.Short() {
		t.Skip("runs executions of 120,000 steps")
	}
	rep := engine.Explore(breakerInParallel, engine.Config{Strategy: strategy.NewRandom(1), Schedules: 3})
	if rep.First != nil || rep.Buggy != 0 {
		t.Fatalf("bug %v (%d buggy schedules): want none, the failure only a notice", bugOf(rep), rep.Buggy)
	}
	if len(rep.Notices) == 0 || !strings.Contains(strings.Join(rep.Notices, "\n"), "virtual clock ran ahead") {
		t.Fatalf("notices %q: want one saying the virtual clock ran ahead of the work", rep.Notices)
	}
}
