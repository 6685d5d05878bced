package strategy_test

import (
	"slices"
	"testing"

	"github.com/interleave-dev/interleave/engine"
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
		{"ipb1", strategy.NewIPB, 1, 11, 3, "all 11 schedules with ≤ 1 preemptions explored " + engine.WholeScheduleSpace},
		{"ipb", strategy.NewIPB, -1, 11, 3, "all 11 schedules with ≤ 1 preemptions explored " + engine.WholeScheduleSpace},
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

// TestFigure2DelayVsPreemption checks the adversarial example of §2.4 (Figure 2): the
// assertion fails under a preemption bound of 1 and never under a delay bound of 1.
func TestFigure2DelayVsPreemption(t *testing.T) {
	_, rep := explore(t, figure2, strategy.NewIPB(1), 10_000)
	if rep.Buggy == 0 {
		t.Errorf("ipb ≤ 1: no bug in %d schedules", rep.Schedules)
	}
	runs, rep := explore(t, figure2, strategy.NewIDB(1), 10_000)
	if rep.Buggy != 0 || rep.Stopped != "exhausted" {
		t.Errorf("idb ≤ 1: %d buggy of %d schedules (stopped %q)", rep.Buggy, rep.Schedules, rep.Stopped)
	}
	_, rep2 := explore(t, figure2, strategy.NewIDB(2), 10_000)
	if rep2.Buggy == 0 {
		t.Errorf("idb ≤ 2: no bug in %d schedules", rep2.Schedules)
	}
	t.Logf("idb ≤ 1: %d schedules; idb ≤ 2: %d, %d buggy", len(runs), rep2.Schedules, rep2.Buggy)
}

// TestIterativeBoundingNeverRepeats runs IPB and IDB to exhaustion: no schedule is executed
// twice across bounds, bounds only grow, every execution's cost is its bound, and the union
// of the schedules is exactly DFS's set.
func TestIterativeBoundingNeverRepeats(t *testing.T) {
	programs := []struct {
		name string
		body func(*engine.T)
	}{
		{"figure1", figure1},
		{"figure2", figure2},
		{"straight-2-2-1", straightLine(2, 2, 1)},
		{"straight-3-1-2", straightLine(3, 1, 2)},
		{lockedWrites.name, lockedWrites.body},
		{lockOrder.name, lockOrder.body},
		{"spin", spinWait(2, 0)},
	}
	key := func(r run) string { return r.gs + " " + r.labels }
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			dfs, _ := explore(t, p.body, strategy.NewDFS(), 100_000)
			want := set(dfs, key)
			for _, s := range []*strategy.Systematic{strategy.NewIPB(-1), strategy.NewIDB(-1)} {
				runs, rep := explore(t, p.body, s, 100_000)
				if rep.Stopped != "exhausted" {
					t.Fatalf("%s stopped: %s", s.Name(), rep.Stopped)
				}
				got := set(runs, key)
				if dup := duplicates(got); dup != "" {
					t.Errorf("%s: schedule %s explored twice", s.Name(), dup)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s explored %d schedules, DFS %d:\n%v\n%v", s.Name(), len(got), len(want), got, want)
				}
				perBound := map[int]int{}
				for i, r := range runs {
					perBound[r.bound]++
					if i > 0 && r.bound < runs[i-1].bound {
						t.Errorf("%s: bound went down from %d to %d", s.Name(), runs[i-1].bound, r.bound)
					}
					if r.cost != r.bound {
						t.Errorf("%s: schedule %s has cost %d at bound %d", s.Name(), r.labels, r.cost, r.bound)
					}
					if s.Name() == "ipb" && p.name != "spin" && r.preemp != r.cost {
						// Without yields, the engine's count of preemptions is IPB's.
						t.Errorf("ipb: schedule %s has %d preemptions, cost %d", r.labels, r.preemp, r.cost)
					}
				}
				t.Logf("%s: %d schedules by bound %v; %s", s.Name(), len(runs), perBound, rep.Exhausted)
			}
		})
	}
}

// TestSystematicBusyWait checks §3 ("Busy-wait loops"): a switch is forced after every
// yield, free of charge, so the searches terminate on a program whose body busy-waits for
// its goroutines, and each execution terminates even when several goroutines spin (where the
// schedule tree itself is infinite).
func TestSystematicBusyWait(t *testing.T) {
	for _, mk := range []func() *strategy.Systematic{
		strategy.NewDFS,
		func() *strategy.Systematic { return strategy.NewIPB(-1) },
		func() *strategy.Systematic { return strategy.NewIDB(-1) },
	} {
		s := mk()
		runs, rep := explore(t, spinWait(1, 0), s, 10_000)
		if rep.Stopped != "exhausted" || rep.Buggy != 0 {
			t.Errorf("%s on one spinner: stopped %q after %d schedules, %d buggy", s.Name(), rep.Stopped, rep.Schedules, rep.Buggy)
		}
		if s.Name() != "dfs" && runs[0].cost != 0 {
			t.Errorf("%s: the first schedule costs %d", s.Name(), runs[0].cost)
		}
		t.Logf("%s: %s", s.Name(), rep.Exhausted)
		s = mk()
		_, rep = explore(t, spinWait(2, 2), s, 300)
		if rep.Buggy != 0 {
			t.Errorf("%s on three spinners: %v", s.Name(), rep.First.Bug)
		}
	}
}
