package strategy_test

import (
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
			// The spin ends after at most one fairness bound (and a few steps).
			if rep.MaxSteps > engine.DefaultFairSteps+10 {
				t.Errorf("max steps %d, want at most the fairness bound %d and a few", rep.MaxSteps, engine.DefaultFairSteps)
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
