package strategy_test

import (
	"sync"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// spinUntilSet is a correct program under Go's scheduler that no schedule can finish without
// fairness: the test goroutine busy-waits, with no yield, for a flag that a goroutine it
// started sets. A strategy that keeps the running goroutine while it is enabled (the first
// schedule of every systematic strategy, PCT's highest priority) would spin forever.
func spinUntilSet(t *engine.T) {
	var flag bool
	engine.Go(func() { engine.Store(&flag, true, "set") }, "go")
	for !engine.Load(&flag, "spin") {
	}
}

// TestFairnessEndsBusyWaits: with the default fairness bound, every strategy explores the
// busy-wait without a livelock; without it, the systematic strategies' first schedule is one.
func TestFairnessEndsBusyWaits(t *testing.T) {
	for _, name := range strategy.Names {
		if name == "replay" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			s, err := strategy.New(name, nil, 1)
			if err != nil {
				t.Fatal(err)
			}
			rep := engine.Explore(spinUntilSet, engine.Config{Strategy: s, Schedules: 50})
			if rep.First != nil {
				t.Fatalf("bug %v after %d steps, want none", rep.First.Bug, rep.First.Steps)
			}
			if rep.Err != nil {
				t.Fatal(rep.Err)
			}
			// The spin ends after at most one fairness bound (and a few steps) for each
			// step the setter must take past the spinner: its start, and its store (a
			// systematic strategy explores the spinner's turn between the two); the
			// portfolio's unfair member's bound is UnfairSteps.
			bound := engine.DefaultFairSteps
			if name == "portfolio" {
				bound = strategy.UnfairSteps
			}
			if rep.MaxSteps > 2*bound+10 {
				t.Errorf("max steps %d, want at most twice the fairness bound %d and a few", rep.MaxSteps, bound)
			}
		})
	}
	t.Run("off", func(t *testing.T) {
		rep := engine.Explore(spinUntilSet, engine.Config{Strategy: strategy.NewDFS(), Schedules: 1, FairSteps: -1, MaxSteps: 10_000})
		if rep.First == nil || rep.First.Bug.Kind != engine.Livelock {
			t.Fatalf("without fairness: %+v, want a livelock", rep.First)
		}
	})
}

// TestFairnessKeepsLivelocks: goroutines that wait on each other forever are still a livelock.
func TestFairnessKeepsLivelocks(t *testing.T) {
	body := func(t *engine.T) {
		var a, b bool
		engine.Go(func() {
			for !engine.Load(&b, "wait b") {
			}
			engine.Store(&a, true, "set a")
		}, "go")
		for !engine.Load(&a, "wait a") {
		}
		engine.Store(&b, true, "set b")
	}
	rep := engine.Explore(body, engine.Config{Strategy: strategy.NewDFS(), Schedules: 1, MaxSteps: 10_000})
	if rep.First == nil || rep.First.Bug.Kind != engine.Livelock {
		t.Fatalf("got %+v, want a livelock", rep.First)
	}
}

// turnTaking is two goroutines that hand a value back and forth until a third closes done: a
// correct program under Go's scheduler, which runs the third eventually. With deadlock set,
// the test then waits for one goroutine too many: the deadlock that a strategy passing over
// the third forever would hide behind a livelock at the step bound.
func turnTaking(deadlock bool) func(t *engine.T) {
	return func(t *engine.T) {
		done := engine.MakeChan[struct{}](0, "t.go:1")
		ping := engine.MakeChan[int](0, "t.go:2")
		pong := engine.MakeChan[int](0, "t.go:3")
		var wg sync.WaitGroup
		n := 3
		if deadlock {
			n = 4
		}
		engine.WGAdd(&wg, n, "t.go:4")
		engine.Go(func() {
			defer engine.WGDone(&wg, "t.go:5")
			for {
				if engine.Select("t.go:6", false, engine.RecvCase(done), engine.SendCase(ping, 1)) == 0 {
					return
				}
				if engine.Select("t.go:7", false, engine.RecvCase(done), engine.RecvCase(pong)) == 0 {
					return
				}
			}
		}, "t.go:8")
		engine.Go(func() {
			defer engine.WGDone(&wg, "t.go:9")
			for {
				if engine.Select("t.go:10", false, engine.RecvCase(done), engine.RecvCase(ping)) == 0 {
					return
				}
				if engine.Select("t.go:11", false, engine.RecvCase(done), engine.SendCase(pong, 2)) == 0 {
					return
				}
			}
		}, "t.go:12")
		engine.Go(func() {
			defer engine.WGDone(&wg, "t.go:13")
			engine.Close(done, "t.go:14")
		}, "t.go:15")
		engine.WGWait(&wg, "t.go:16")
	}
}

// TestFairnessAcrossGoroutines: two goroutines taking turns cannot keep a third, enabled one
// from running: the correct program passes under every strategy, and the one whose third
// goroutine deadlocks is reported as the deadlock, not as a livelock at the step bound.
// Without the rule (mutation: a starvation bound too large to reach), PCT reports livelocks.
func TestFairnessAcrossGoroutines(t *testing.T) {
	for _, name := range []string{"pct", "random", "dfs", "portfolio"} {
		t.Run(name, func(t *testing.T) {
			s, err := strategy.New(name, nil, 1)
			if err != nil {
				t.Fatal(err)
			}
			rep := engine.Explore(turnTaking(false), engine.Config{Strategy: s, Schedules: 200})
			if rep.First != nil || rep.Err != nil {
				t.Fatalf("correct program: bug %v (%v)", rep.First.Bug, rep.Err)
			}
			s, _ = strategy.New(name, nil, 1)
			rep = engine.Explore(turnTaking(true), engine.Config{Strategy: s, Schedules: 200})
			if rep.First == nil || rep.First.Bug.Kind != engine.Deadlock {
				t.Fatalf("deadlocking program: %+v, want the deadlock", rep.First)
			}
		})
	}
}
