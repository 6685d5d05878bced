package strategy_test

import (
	"testing"

	"github.com/interleave-dev/interleave/engine/strategy"
)

// TestFigure1Bounds checks SCTBench Examples 1 and 2 (§2.3, §2.4) bound by bound: the
// preemption bound 0 gives the 6 non-preemptive schedules and bound ≤ 1 gives 11 terminal
// schedules, 3 of them buggy; the delay bound 0 gives 1 schedule and ≤ 1 gives 4.
func TestFigure1Bounds(t *testing.T) {
	tests := []struct {
		name      string
		mk        func(max int) *strategy.Systematic
		max       int
		want      int
		wantBuggy int
		exhausted string
	}{
		{"ipb0", strategy.NewIPB, 0, 6, 0, "all 6 schedules with ≤ 0 preemptions explored"},
		{"ipb1", strategy.NewIPB, 1, 11, 3, "all 11 schedules with ≤ 1 preemptions explored (the whole schedule space)"},
		{"ipb", strategy.NewIPB, -1, 11, 3, "all 11 schedules with ≤ 1 preemptions explored (the whole schedule space)"},
		{"idb0", strategy.NewIDB, 0, 1, 0, "all 1 schedules with ≤ 0 delays explored"},
		{"idb1", strategy.NewIDB, 1, 4, 1, "all 4 schedules with ≤ 1 delays explored"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.mk(tc.max)
			runs, rep := explore(t, figure1, s, 1000)
			for _, r := range runs {
				t.Logf("bound %d: %s bug=%v", r.bound, compact(r), r.bug)
			}
			if rep.Schedules != tc.want || rep.Buggy != tc.wantBuggy {
				t.Errorf("%d schedules, %d buggy; want %d, %d", rep.Schedules, rep.Buggy, tc.want, tc.wantBuggy)
			}
			if rep.Stopped != "exhausted" || rep.Exhausted != tc.exhausted {
				t.Errorf("stopped %q: %q; want exhausted: %q", rep.Stopped, rep.Exhausted, tc.exhausted)
			}
			if got := runs[0].labels; got != "a b c d e" {
				t.Errorf("first schedule %q, want the round-robin schedule a b c d e", got)
			}
		})
	}
}
