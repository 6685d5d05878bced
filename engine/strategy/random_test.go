package strategy_test

import (
	"slices"
	"strconv"
	"testing"

	"github.com/interleave-dev/interleave/engine/strategy"
)

func TestRandomSameSeedSameSchedules(t *testing.T) {
	schedules := func(seed uint64) []string {
		runs, _ := explore(t, straightLine(3, 2, 2), strategy.NewRandom(seed), 100)
		var out []string
		for _, r := range runs {
			out = append(out, r.gs)
		}
		return out
	}
	a, b, c := schedules(42), schedules(42), schedules(43)
	if !slices.Equal(a, b) {
		t.Fatal("the same seed gave different schedules")
	}
	if slices.Equal(a, c) {
		t.Fatal("different seeds gave the same 100 schedules")
	}
	distinct := map[string]bool{}
	for _, s := range a {
		distinct[s] = true
	}
	if len(distinct) < 50 {
		t.Fatalf("only %d distinct schedules in 100", len(distinct))
	}
}

func TestRandomFindsFigure1Bug(t *testing.T) {
	_, rep := explore(t, figure1, strategy.NewRandom(1), 1000)
	if rep.First == nil {
		t.Fatalf("no bug in %d schedules", rep.Schedules)
	}
	t.Logf("first bug at schedule %d; %d buggy of %d", rep.FirstAt, rep.Buggy, rep.Schedules)
}

// TestRandomReproducesAnExecutionAlone checks §5's per-execution seeds: an execution's seed
// (its Params) runs it again as the first execution of a new strategy.
func TestRandomReproducesAnExecutionAlone(t *testing.T) {
	var params []map[string]string
	runs, _ := explore(t, straightLine(2, 2, 2), &paramsSpy{Strategy: strategy.NewRandom(8), params: &params}, 20)
	for _, i := range []int{0, 7, 19} {
		if _, err := strconv.ParseUint(params[i]["seed"], 10, 64); err != nil {
			t.Fatalf("params %v", params[i])
		}
		q, err := strategy.New("random", params[i], 123)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := explore(t, straightLine(2, 2, 2), q, 1)
		if again[0].gs != runs[i].gs {
			t.Errorf("execution %d: %s, first time %s", i, again[0].gs, runs[i].gs)
		}
	}
}
