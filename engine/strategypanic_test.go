package engine_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/interleave-dev/interleave/engine"
)

// TestStrategyPanicIsNotTheProgramsBug: a strategy that panics in Pick, or in Choose, ends
// the exploration with an error that names the strategy, the step and the strategy's frame —
// not with a panic of the program at the scheduling point, whose goroutine the strategy ran on
// (mutation-checked: without strategyPanic, the panic is the program's bug); and a program's
// own panic is still its bug.
func TestStrategyPanicIsNotTheProgramsBug(t *testing.T) {
	body := func(t *engine.T) {
		var mu sync.Mutex
		a, b := engine.MakeChan[int](1, "p.go:1"), engine.MakeChan[int](1, "p.go:2")
		engine.Send(a, 1, "p.go:3")
		engine.Send(b, 2, "p.go:4")
		for range 2 {
			engine.Go(func() {
				engine.Lock(&mu, "p.go:5")
				engine.Unlock(&mu, "p.go:6")
			}, "p.go:7")
		}
		// Both cases ready: the strategy chooses.
		engine.Select("p.go:8", false, engine.RecvCase(a), engine.RecvCase(b))
	}
	for _, tc := range []struct {
		name string
		s    engine.Strategy
		in   string
	}{
		{"Pick", &funcStrategy{pick: func(d *engine.Decision) engine.GID {
			if d.Step == 5 {
				var none []engine.GID
				return none[d.Step] // index out of range
			}
			return d.EnabledAt(0)
		}}, "TestStrategyPanicIsNotTheProgramsBug"},
		{"Choose", &choosePanics{funcStrategy: lowestFirst()}, "choosePanics"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := engine.Explore(body, engine.Config{Strategy: tc.s, Schedules: 1})
			if rep.First != nil {
				t.Fatalf("reported as the program's bug: %v", rep.First.Bug)
			}
			if rep.Err == nil || !strings.Contains(rep.Err.Error(), ": strategy test panicked: runtime error: index out of range") || !strings.Contains(rep.Err.Error(), tc.in) {
				t.Fatalf("error %v: want the strategy's panic, in %s", rep.Err, tc.in)
			}
		})
	}
	rep := engine.Explore(func(t *engine.T) {
		engine.Go(func() { panic("the program's own") }, "q.go:1")
	}, engine.Config{Strategy: lowestFirst(), Schedules: 1})
	if rep.First == nil || rep.First.Bug.Kind != engine.Panic {
		t.Fatalf("the program's panic: %+v, want its bug", rep.First)
	}
}

// choosePanics is lowestFirst whose Choose panics.
type choosePanics struct{ *funcStrategy }

func (c *choosePanics) Choose(ch *engine.Choice) int {
	var none []int
	return none[ch.N]
}
