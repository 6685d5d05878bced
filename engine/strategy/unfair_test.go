package strategy_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// signals is how many times lostWakeup signals before waiting for its waiter.
const signals = 10_000

// lostWakeup starts a waiter that waits on a condition variable without a predicate, then
// signals it ten thousand times. When the loop ends before the new goroutine reaches Wait (Go
// may leave it unscheduled that long: ten thousand signals take a few hundred microseconds,
// inside the scheduler's 10ms time slice), every signal is lost and the waiter blocks for
// good: a deadlock.
func lostWakeup(fixed bool) func(*engine.T) {
	return func(t *engine.T) {
		var mu sync.Mutex
		cond := sync.NewCond(&mu)
		var wg sync.WaitGroup
		ready := false
		engine.WGAdd(&wg, 1, "l.go:1")
		engine.Go(func() {
			defer engine.WGDone(&wg, "l.go:3")
			engine.Lock(&mu, "l.go:4")
			if fixed {
				for !engine.Load(&ready, "l.go:5") {
					engine.CondWait(cond, "l.go:6")
				}
			} else {
				engine.CondWait(cond, "l.go:6")
			}
			engine.Unlock(&mu, "l.go:7")
		}, "l.go:2")
		if fixed {
			engine.Lock(&mu, "l.go:8")
			engine.Store(&ready, true, "l.go:9")
			engine.Unlock(&mu, "l.go:10")
		}
		for range signals {
			engine.CondSignal(cond, "l.go:11")
		}
		engine.WGWait(&wg, "l.go:12")
	}
}

// fairPortfolio is the default portfolio without its unfair member.
var fairPortfolio = strings.TrimSuffix(strategy.DefaultPortfolioMembers, "+idb:max=0:fair=20000")

// TestUnfairMemberFindsLostWakeup: the fair strategies make the signaller yield after a
// thousand steps, so the waiter always reaches Wait in time; the default portfolio's unfair
// member runs the signaller's whole loop first and finds the lost wake-up, whose schedule
// file records the member's fairness bound and replays only with it.
func TestUnfairMemberFindsLostWakeup(t *testing.T) {
	if fairPortfolio == strategy.DefaultPortfolioMembers {
		t.Fatalf("the default portfolio %q has no unfair member", strategy.DefaultPortfolioMembers)
	}
	for _, spec := range []struct{ name, params string }{{"pct", ""}, {"idb", ""}, {"portfolio", fairPortfolio}} {
		var params map[string]string
		if spec.params != "" {
			params = map[string]string{"members": spec.params}
		}
		s, err := strategy.New(spec.name, params, 1)
		if err != nil {
			t.Fatal(err)
		}
		rep := engine.Explore(lostWakeup(false), engine.Config{Strategy: s, Schedules: 100})
		if rep.First != nil || rep.Err != nil {
			t.Fatalf("%s (fair): %v %v, want nothing: the signaller yields to the waiter", spec.name, rep.First.Bug, rep.Err)
		}
	}

	s, err := strategy.New("portfolio", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	var file *schedule.File
	rep := engine.Explore(lostWakeup(false), engine.Config{Strategy: s, Schedules: 100, OnExecution: func(n int, r *engine.Result) {
		if r.Bug != nil && file == nil {
			file = engine.NewScheduleFile(r, engine.TestInfo{Package: "p", Name: "TestLostWakeup"}, s, n)
		}
	}})
	if rep.First == nil || rep.First.Bug.Kind != engine.Deadlock {
		t.Fatalf("default portfolio: %+v after %d schedules, want the deadlock of the lost wake-up", rep.First, rep.Schedules)
	}
	if got := file.Strategy.Params["member"]; got != "unfair-idb" || file.Strategy.Params["unfair-idb.fair"] != "20000" {
		t.Fatalf("found by %q with params %v, want the unfair member", got, file.Strategy.Params)
	}
	if rep.FirstAt != 7 {
		t.Errorf("found at execution %d, want 7: the unfair member's first turn", rep.FirstAt)
	}
	var text bytes.Buffer
	if err := file.Encode(&text); err != nil {
		t.Fatal(err)
	}
	back, err := schedule.Decode(&text)
	if err != nil {
		t.Fatal(err)
	}
	if back.FairSteps != strategy.UnfairSteps {
		t.Fatalf("the file records fairSteps %d, want %d", back.FairSteps, strategy.UnfairSteps)
	}
	var cfg engine.Config
	if err := cfg.UseFile(back); err != nil {
		t.Fatal(err)
	}
	if err := engine.CheckReproduced(back, engine.Run(lostWakeup(false), strategy.NewReplayFile(back), cfg)); err != nil {
		t.Fatal(err)
	}
	// Under the default bound the signaller would be made to yield: the replay diverges.
	if r := engine.Run(lostWakeup(false), strategy.NewReplayFile(back), engine.Config{}); r.Err == nil {
		t.Fatalf("replayed under the default fairness bound: %v, want a divergence", r.Bug)
	}
}

// TestUnfairMemberKeepsCorrectProgramsClean: with a predicate set before the signals, the
// waiter never blocks for good, whoever runs first; and a busy-wait on a new goroutine's flag
// still ends under the unfair member (after UnfairSteps steps, not a livelock).
func TestUnfairMemberKeepsCorrectProgramsClean(t *testing.T) {
	for name, body := range map[string]func(*engine.T){"predicate": lostWakeup(true), "spin": spinUntilSet} {
		s, err := strategy.New("portfolio", nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		rep := engine.Explore(body, engine.Config{Strategy: s, Schedules: 30})
		if rep.First != nil || rep.Err != nil || rep.StepBound > 0 {
			t.Fatalf("%s: %v %v (%d cut at the step bound)", name, rep.First, rep.Err, rep.StepBound)
		}
	}
}
