package strategy_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// TestPCTExample3 reproduces SCTBench's Example 3 (§2.7): on Figure 2 with n = 4, k = 6,
// d = 2, initial priorities T0→5, T1→4, T3→3, T2→2 and the change point k1 = 2, PCT runs
// exactly ⟨a, b, e⟩, and the assertion fails.
func TestPCTExample3(t *testing.T) {
	p, err := strategy.NewPCT(strategy.PCTConfig{D: 2, N: 4, K: 6, Learn: -1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Fix([]int{5, 4, 2, 3}, []int{2}); err != nil {
		t.Fatal(err)
	}
	res := engine.Run(figure2, p, engine.Config{})
	var pos []string
	var gs []int32
	for _, st := range res.Schedule {
		if st.Kind == schedule.Run {
			pos = append(pos, st.Pos)
			gs = append(gs, st.G)
		}
	}
	if !slices.Equal(pos, []string{"a", "b", "e"}) || !slices.Equal(gs, []int32{0, 1, 3}) {
		t.Fatalf("schedule %v by %v, want [a b e] by [0 1 3]", pos, gs)
	}
	if res.Bug == nil || res.Bug.Kind != engine.Panic || !strings.Contains(res.Bug.Message, "assertion failed") {
		t.Fatalf("bug %v, want the assertion failure", res.Bug)
	}
	// Without the change point (d = 1), the same priorities run T1 to completion first.
	p, _ = strategy.NewPCT(strategy.PCTConfig{D: 1, N: 4, K: 6, Learn: -1})
	if err := p.Fix([]int{5, 4, 2, 3}, nil); err != nil {
		t.Fatal(err)
	}
	res = engine.Run(figure2, p, engine.Config{})
	if res.Bug != nil || len(res.Schedule) != 6 || res.Schedule[1].Pos != "b" || res.Schedule[2].Pos != "c" {
		t.Fatalf("d = 1: %v, bug %v", res.Schedule, res.Bug)
	}
}

func TestPCTFixValidates(t *testing.T) {
	p, _ := strategy.NewPCT(strategy.PCTConfig{D: 2})
	for _, tc := range []struct {
		prio, pts []int
	}{
		{[]int{5, 5}, []int{1}}, // not distinct
		{[]int{1, 5}, []int{1}}, // below d
		{[]int{5, 4}, nil},      // d−1 = 1 change point wanted
		{[]int{5, 4}, []int{0}}, // change points start at 1
	} {
		if err := p.Fix(tc.prio, tc.pts); err == nil {
			t.Errorf("Fix(%v, %v) accepted", tc.prio, tc.pts)
		}
	}
}

// TestPCTProbabilityBound checks the guarantee of §2.7 on Figure 1, whose bug has depth 2
// (b before e before c): with d = 2, the fraction of buggy executions is at least
// 1/(n·k^(d−1)) = 1/(4·5); with d = 1 (no change point, every goroutine runs to completion
// in priority order) the bug is never found. Fixed seeds keep the test deterministic.
func TestPCTProbabilityBound(t *testing.T) {
	const execs = 2000
	for _, d := range []int{1, 2, 3} {
		p, err := strategy.NewPCT(strategy.PCTConfig{D: d, N: 4, K: 5, Learn: -1, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		_, rep := explore(t, figure1, p, execs)
		rate := float64(rep.Buggy) / float64(rep.Schedules)
		t.Logf("d = %d: %d buggy of %d (%.3f)", d, rep.Buggy, rep.Schedules, rate)
		switch {
		case d == 1 && rep.Buggy != 0:
			t.Errorf("d = 1 found the depth-2 bug %d times", rep.Buggy)
		case d >= 2 && rate < 1.0/20:
			t.Errorf("d = %d: rate %.3f below the bound 1/(n·k) = 0.05", d, rate)
		}
	}
}

// TestPCTWithoutChangePointsIsPriorityOrder checks steps (1) and (3) of §2.7: with d = 1,
// each execution runs the straight-line goroutines one after the other, in an order that
// varies with the seed.
func TestPCTWithoutChangePointsIsPriorityOrder(t *testing.T) {
	p, _ := strategy.NewPCT(strategy.PCTConfig{D: 1, N: 4, K: 8, Seed: 3})
	runs, _ := explore(t, straightLine(2, 3, 1), p, 200)
	orders := map[string]bool{}
	for _, r := range runs {
		if r.preemp != 0 {
			t.Fatalf("schedule %s has %d preemptions", r.gs, r.preemp)
		}
		orders[r.gs] = true
	}
	if len(orders) != 6 {
		t.Fatalf("%d distinct orders of 3 goroutines, want 6: %v", len(orders), orders)
	}
}

// TestPCTLearnsNAndK checks footnote 5 of §5: the estimates start from the defaults and are
// replaced by the maxima observed (goroutines, and steps counted from the step that starts
// the second goroutine).
func TestPCTLearnsNAndK(t *testing.T) {
	p, _ := strategy.NewPCT(strategy.PCTConfig{Seed: 1})
	if n, k := p.Estimates(); n != strategy.DefaultPCTN || k != strategy.DefaultPCTK {
		t.Fatalf("initial estimates %d, %d", n, k)
	}
	body := func(t *engine.T) {
		// Two uncounted steps before the first go statement.
		engine.Gosched("pre1")
		engine.Gosched("pre2")
		straightLine(2, 3, 1)(t)
	}
	explore(t, body, p, 3)
	// 4 goroutines; counted steps: the GoAll step and 2+3+1 writes.
	if n, k := p.Estimates(); n != 4 || k != 7 {
		t.Fatalf("estimates after learning %d, %d; want 4, 7", n, k)
	}
	if got := p.Params(); got["n"] != "4" || got["k"] != "7" || got["d"] != "3" || got["seed"] == "" {
		t.Fatalf("params %v", got)
	}
}

// TestPCTBusyWait checks that PCT does not livelock on busy-wait loops: a yield lowers the
// yielding goroutine below every other (§3), so the goroutines it waits for run.
func TestPCTBusyWait(t *testing.T) {
	for _, d := range []int{1, 2, 3} {
		p, _ := strategy.NewPCT(strategy.PCTConfig{D: d, Seed: 11})
		_, rep := explore(t, spinWait(2, 2), p, 300)
		if rep.Buggy != 0 {
			t.Fatalf("d = %d: %v", d, rep.First.Bug)
		}
	}
}

// TestPCTReproducesAnExecutionAlone checks the per-execution seeding of §5: the parameters
// of any execution rebuild a strategy whose first execution is that one.
func TestPCTReproducesAnExecutionAlone(t *testing.T) {
	p, _ := strategy.NewPCT(strategy.PCTConfig{D: 3, Seed: 5})
	var params []map[string]string
	var runs []run
	rs, _ := explore(t, straightLine(2, 2, 2), &paramsSpy{Strategy: p, params: &params}, 30)
	runs = append(runs, rs...)
	for _, i := range []int{0, 1, 12, 29} {
		q, err := strategy.New("pct", params[i], 999)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := explore(t, straightLine(2, 2, 2), q, 1)
		if again[0].gs != runs[i].gs {
			t.Errorf("execution %d with %v: %s, first time %s", i, params[i], again[0].gs, runs[i].gs)
		}
	}
}

// paramsSpy records the strategy's Params at the end of every execution.
type paramsSpy struct {
	engine.Strategy
	params *[]map[string]string
}

func (s *paramsSpy) End(r *engine.Result) {
	*s.params = append(*s.params, s.Strategy.Params())
	s.Strategy.End(r)
}
