package engine_test

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
)

// waitFor yields until cond holds (goroutines' exits are bookkept after their functions
// return).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; !cond(); i++ {
		if i > 1e7 {
			t.Fatalf("%s: never happened", what)
		}
		runtime.Gosched()
	}
}

// TestStressOwnerTracksGoroutines: in stress mode a goroutine started (through the engine's
// Go) by a test's goroutine belongs to that test, transitively, until it exits; goroutines of
// other code are not tracked.
func TestStressOwnerTracksGoroutines(t *testing.T) {
	engine.StartStress(engine.StressHooks{})
	defer engine.StopStress()
	o := engine.NewStressOwner("TestX")
	release := make(chan struct{})
	started := make(chan struct{})
	rootDone := make(chan struct{})
	o.Go(func() {
		defer close(rootDone)
		engine.Go(func() {
			engine.Go(func() { <-release }, "x_test.go:2")
			close(started)
			<-release
		}, "x_test.go:1")
	})
	<-rootDone
	<-started
	waitFor(t, "the root goroutine's exit", func() bool { return o.LiveCount() == 2 })
	var live []engine.StressGoroutine
	waitFor(t, "the goroutines' start", func() bool {
		live = o.Live()
		return live[0].ID != 0 && live[1].ID != 0
	})
	// Ids are not in creation order (the runtime hands them out in batches per P).
	created := []string{live[0].Created, live[1].Created}
	slices.Sort(created)
	if len(live) != 2 || created[0] != "x_test.go:1" || created[1] != "x_test.go:2" {
		t.Fatalf("live goroutines %+v, want the two started at x_test.go:1 and :2", live)
	}
	untracked := make(chan struct{})
	engine.Go(func() { close(untracked) }, "other.go:1") // not a test's goroutine
	<-untracked
	close(release)
	waitFor(t, "the goroutines' exits", func() bool { return o.LiveCount() == 0 })
}

// TestStressHoldAndDelays: the goroutine randomizer holds the one goroutine there is at its
// next instrumented operation, and delays with probability 1 apply at every operation.
func TestStressHoldAndDelays(t *testing.T) {
	engine.StartStress(engine.StressHooks{})
	defer engine.StopStress()
	o := engine.NewStressOwner("TestX")
	var mu sync.Mutex
	ready, proceed, done := make(chan struct{}), make(chan struct{}), make(chan time.Duration)
	o.Go(func() {
		close(ready)
		<-proceed
		start := time.Now()
		engine.Lock(&mu, "x_test.go:1")
		engine.Unlock(&mu, "x_test.go:2")
		done <- time.Since(start)
	})
	<-ready
	if !engine.HoldRandom(rand.New(rand.NewPCG(1, 1)), 20*time.Millisecond) {
		t.Fatal("HoldRandom found no goroutine to hold")
	}
	close(proceed)
	if d := <-done; d < 20*time.Millisecond {
		t.Errorf("the held goroutine went on after %v, want ≥ 20ms", d)
	}
	if _, holds := engine.StressCounts(); holds != 1 {
		t.Errorf("holds = %d, want 1", holds)
	}
	engine.SetStressDelays(1, 0, 0) // a yield at every operation
	for range 10 {
		engine.Lock(&mu, "x_test.go:3")
		engine.Unlock(&mu, "x_test.go:4")
	}
	if delays, _ := engine.StressCounts(); delays != 20 {
		t.Errorf("delays = %d, want 20", delays)
	}
	engine.SetStressDelays(0, 0, 0)
}

// TestStressHoldClock: with the randomizer's operation clock on, a hold starts at an
// operation with the probability set — with 1, at every operation, and the goroutine that
// ran it, the only one there is, is held there — and one operation in 4,096 is counted.
func TestStressHoldClock(t *testing.T) {
	engine.StartStress(engine.StressHooks{})
	defer engine.StopStress()
	o := engine.NewStressOwner("TestX")
	var mu sync.Mutex
	done := make(chan time.Duration)
	engine.SetStressHolds(1, time.Millisecond, time.Millisecond, 1)
	o.Go(func() {
		start := time.Now()
		for range 3 {
			engine.Lock(&mu, "x_test.go:1")
			engine.Unlock(&mu, "x_test.go:2")
		}
		done <- time.Since(start)
	})
	if d := <-done; d < 6*time.Millisecond {
		t.Errorf("6 operations held 1ms each took %v", d)
	}
	if _, holds := engine.StressCounts(); holds < 5 { // one in 4,096 is a sample instead
		t.Errorf("holds = %d, want 6", holds)
	}
	// The count of operations: 2,000,000 operations give 488 samples on average, with a
	// standard deviation of 22; the bounds are 10 standard deviations away.
	engine.SetStressHolds(1e-15, 0, 0, 1)
	before := engine.StressOperations()
	for range 1_000_000 {
		engine.Lock(&mu, "x_test.go:3")
		engine.Unlock(&mu, "x_test.go:4")
	}
	if n := engine.StressOperations() - before; n < 1_100_000 || n > 2_900_000 {
		t.Errorf("StressOperations counted %d of 2,000,000 operations", n)
	}
	engine.SetStressHolds(0, 0, 0, 0)
}

// BenchmarkStressHook measures an instrumented Lock/Unlock pair in stress mode when neither
// randomization acts, against the real pair and against the engine's entry points outside
// stress mode (go test -bench StressHook ./engine).
func BenchmarkStressHook(b *testing.B) {
	var mu sync.Mutex
	b.Run("native", func(b *testing.B) {
		for b.Loop() {
			mu.Lock()
			mu.Unlock()
		}
	})
	b.Run("instrumented", func(b *testing.B) {
		for b.Loop() {
			engine.Lock(&mu, "b.go:1")
			engine.Unlock(&mu, "b.go:2")
		}
	})
	b.Run("stress", func(b *testing.B) {
		engine.StartStress(engine.StressHooks{})
		defer engine.StopStress()
		for b.Loop() {
			engine.Lock(&mu, "b.go:1")
			engine.Unlock(&mu, "b.go:2")
		}
	})
	b.Run("stress-clock", func(b *testing.B) {
		engine.StartStress(engine.StressHooks{})
		defer engine.StopStress()
		engine.SetStressHolds(1e-15, 0, 0, 1) // the randomizer's clock on, no hold
		for b.Loop() {
			engine.Lock(&mu, "b.go:1")
			engine.Unlock(&mu, "b.go:2")
		}
	})
	b.Run("stress-delays-0.001", func(b *testing.B) {
		engine.StartStress(engine.StressHooks{})
		defer engine.StopStress()
		engine.SetStressDelays(0.001, 0, 0)
		for b.Loop() {
			engine.Lock(&mu, "b.go:1")
			engine.Unlock(&mu, "b.go:2")
		}
	})
}
