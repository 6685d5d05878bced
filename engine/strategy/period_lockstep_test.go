package strategy_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// periodRound is a round of a lockstep search: every part's outcomes, and how many
// executions they ran.
type periodRound struct {
	outcomes []strategy.PeriodOutcome
	executed int
}

// cut is the round's first execution that found new racy points, or -1.
func (r periodRound) cut() int {
	c := -1
	for _, o := range r.outcomes {
		if len(o.Points) > 0 && (c < 0 || o.Seq < c) {
			c = o.Seq
		}
	}
	return c
}

// periodRounds is every round of a lockstep search.
type periodRounds []periodRound

// recordRounds is the exchanger of a lockstep search of one part: it keeps the rounds.
type recordRounds struct{ rounds *periodRounds }

func (r recordRounds) Exchange(round int, mine []strategy.PeriodOutcome, executed int) ([]strategy.PeriodOutcome, int, string, error) {
	if round != len(*r.rounds) {
		return nil, 0, "", fmt.Errorf("round %d after %d rounds", round, len(*r.rounds))
	}
	*r.rounds = append(*r.rounds, periodRound{slices.Clone(mine), executed})
	return mine, executed, "", nil
}

func (recordRounds) Announce(round, seq int) {}
func (recordRounds) Announced(round int) int { return -1 }

// replayRounds stands for the other parts of a lockstep search, for part index of count: it
// answers each round with the outcomes the one-part search recorded, after checking that this
// part's executions executed the same key points as the recorded ones. The other parts hear
// of an execution that found new racy points at once; this part at once too, unless late,
// when it hears of it at the round's end only (and runs the round's other executions of its
// own, which are not learnt from).
type replayRounds struct {
	rounds       periodRounds
	index, count int
	end          string // said after the recorded rounds, "" for an error
	late         bool
}

func (r replayRounds) Announce(round, seq int) {}

func (r replayRounds) Announced(round int) int {
	if r.late || round >= len(r.rounds) {
		return -1
	}
	return r.rounds[round].cut()
}

func (r replayRounds) Exchange(round int, mine []strategy.PeriodOutcome, executed int) ([]strategy.PeriodOutcome, int, string, error) {
	if round >= len(r.rounds) {
		if r.end != "" {
			return nil, 0, r.end, nil
		}
		return nil, 0, "", fmt.Errorf("round %d: the recorded search had %d", round, len(r.rounds))
	}
	rec := r.rounds[round]
	var points []engine.Pos // the round's new racy points
	for _, o := range rec.outcomes {
		points = append(points, o.Points...)
	}
	all := slices.Clone(rec.outcomes)
	for _, m := range mine {
		if c := rec.cut(); c >= 0 && m.Seq > c {
			all = append(all, m) // run late, after the one that found points
			continue
		}
		recorded := strategy.PeriodOutcome{Seq: m.Seq} // supported by its job's slice
		if i := slices.IndexFunc(rec.outcomes, func(o strategy.PeriodOutcome) bool { return o.Seq == m.Seq }); i >= 0 {
			recorded = rec.outcomes[i]
		}
		if !slices.Equal(recorded.Counts, m.Counts) || recorded.Key != m.Key {
			return nil, 0, "", fmt.Errorf("round %d: execution %d executed the slice %v %s, the recorded one %v %s", round, m.Seq, m.Counts, m.Key, recorded.Counts, recorded.Key)
		}
		// A race this part saw first may have been seen earlier in the round by another
		// part: its positions are among the round's.
		for _, p := range m.Points {
			if !slices.Contains(points, p) {
				return nil, 0, "", fmt.Errorf("round %d: execution %d found the new racy point %s, not among the round's %q", round, m.Seq, p, points)
			}
		}
	}
	// The recorded executions (the one-part search stops after the cut), and this part's
	// after the cut: its executions less its own among the recorded.
	before := 0
	for _, pr := range r.rounds[:round] {
		before += pr.executed
	}
	own := 0
	for seq := range rec.executed {
		if (before+seq)%r.count == r.index {
			own++
		}
	}
	return all, rec.executed + executed - own, "", nil
}

// periodSchedules explores body with s and returns the schedule of every execution, in order.
func periodSchedules(t *testing.T, body func(*engine.T), s *strategy.Period, cfg engine.Config) ([]string, *engine.Report) {
	t.Helper()
	var schedules []string
	cfg.Strategy, cfg.KeepGoing, cfg.MaxSteps = s, true, 10_000
	// Recorded as the execution starts (after it, a restart for new racy points has cleared
	// it), once: the body runs again before OnExecution to find a new race's stacks.
	running := false
	cfg.OnExecution = func(int, *engine.Result) { running = false }
	rep := engine.Explore(func(t *engine.T) {
		if !running {
			schedules = append(schedules, s.Schedule())
			running = true
		}
		body(t)
	}, cfg)
	if rep.Err != nil || len(rep.Limitations) > 0 {
		t.Fatalf("exploration failed: %v %v", rep.Err, rep.Limitations)
	}
	return schedules, rep
}

// TestPeriodLockstep: the parts of a lockstep search execute, together, exactly the schedules
// one process executes, each once and in the part that owns its index, and every part ends
// with the same claim; with a budget, they stop together at the whole run's budget. The other
// parts are played by the outcomes a one-part lockstep search recorded, which must itself be
// the search of one process.
func TestPeriodLockstep(t *testing.T) {
	tests := []struct {
		name    string
		body    func(*engine.T)
		mode    string
		periods int
		budget  int
		racy    bool // racy points only, none to start with: races make them
	}{
		{"figure1", figure1, strategy.PeriodParallel, 3, 0, false},
		{"once", periodOnce, strategy.PeriodParallel, 4, 0, false},
		{"once/serial", periodOnce, strategy.PeriodSerial, 4, 0, false},
		{"lock order", periodLockOrder, strategy.PeriodParallel, 3, 0, false},
		{"busy wait", spinWait(2, 1), strategy.PeriodParallel, 4, 0, false},
		{"reorder 3", periodReorder(2, 1), strategy.PeriodParallel, 3, 0, false},
		{"reorder 3/budget", periodReorder(2, 1), strategy.PeriodParallel, 3, 37, false},
		{"reorder 3/racy points", periodReorder(2, 1), strategy.PeriodParallel, 3, 0, true},
		{"once/racy points", periodOnce, strategy.PeriodParallel, 4, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newPeriod := func() *strategy.Period {
				s, err := strategy.NewPeriod(tt.mode, tt.periods)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			cfg := engine.Config{}
			if tt.racy {
				cfg.Points, cfg.Races = engine.PointsRacy, true
			}
			alone := newPeriod()
			cfg.Schedules = tt.budget
			whole, wholeRep := periodSchedules(t, tt.body, alone, cfg)
			cfg.Schedules = 0
			if tt.budget > 0 && len(whole) != tt.budget {
				t.Fatalf("the search ran %d schedules, want the budget %d to bind", len(whole), tt.budget)
			}
			var rounds periodRounds
			one := newPeriod()
			if err := strategy.Lockstep(one, 0, 1, tt.budget, recordRounds{&rounds}); err != nil {
				t.Fatal(err)
			}
			got, oneRep := periodSchedules(t, tt.body, one, cfg)
			if tt.racy && (wholeRep.RacyPointsGrew == 0 || oneRep.RacyPointsGrew != wholeRep.RacyPointsGrew) {
				t.Fatalf("racy points grew %d times in lockstep, %d times alone, want more than none", oneRep.RacyPointsGrew, wholeRep.RacyPointsGrew)
			}
			if !slices.Equal(got, whole) || oneRep.Stopped != wholeRep.Stopped || oneRep.Exhausted != wholeRep.Exhausted || !slices.Equal(oneRep.RacyPoints, wholeRep.RacyPoints) {
				t.Fatalf("one part in lockstep: %d schedules, %s %q; alone: %d, %s %q", len(got), oneRep.Stopped, oneRep.Exhausted, len(whole), wholeRep.Stopped, wholeRep.Exhausted)
			}
			for _, parts := range []int{2, 3} {
				for i := range parts {
					s := newPeriod()
					if err := strategy.Lockstep(s, i, parts, tt.budget, replayRounds{rounds: rounds, index: i, count: parts}); err != nil {
						t.Fatal(err)
					}
					got, rep := periodSchedules(t, tt.body, s, cfg)
					var want []string
					for n, sch := range whole {
						if n%parts == i {
							want = append(want, sch)
						}
					}
					if !slices.Equal(got, want) {
						t.Errorf("part %d of %d executed %d schedules %q, want %d %q", i+1, parts, len(got), got, len(want), want)
					}
					if rep.Stopped != wholeRep.Stopped || rep.Exhausted != wholeRep.Exhausted || !slices.Equal(rep.RacyPoints, wholeRep.RacyPoints) {
						t.Errorf("part %d of %d: %s %q on points %q, want %s %q on %q", i+1, parts, rep.Stopped, rep.Exhausted, rep.RacyPoints, wholeRep.Stopped, wholeRep.Exhausted, wholeRep.RacyPoints)
					}
				}
			}
			if tt.racy {
				// A part that hears late of the execution that found new points runs the
				// round's next executions of its own: executed and counted apart, not learnt
				// from, and numbered over by the next round.
				for i := range 2 {
					s := newPeriod()
					strategy.Lockstep(s, i, 2, 0, replayRounds{rounds: rounds, index: i, count: 2, late: true})
					got, rep := periodSchedules(t, tt.body, s, cfg)
					var want []string
					for n, sch := range whole {
						if n%2 == i {
							want = append(want, sch)
						}
					}
					extra := len(got) - len(want)
					claim := wholeRep.Exhausted
					if extra > 0 {
						claim += fmt.Sprintf("; %d more executed in step with other processes on scheduling points a race had just changed", extra)
					}
					if isSubsequence(want, got) < len(want) || rep.Exhausted != claim {
						t.Errorf("part %d of 2, late: executed %d schedules, %q; want %d and more, %q", i+1, len(got), rep.Exhausted, len(want), claim)
					}
					t.Logf("part %d of 2, late: %d more executed", i+1, extra)
				}
			}
			t.Logf("%d schedules in %d rounds: %s; racy points %q", len(whole), len(rounds), wholeRep.Exhausted, wholeRep.RacyPoints)
		})
	}
}

// TestPeriodLockstepEnds: a part stops when the exchange says another part ended, with that
// reason, and with an error when the exchange fails.
func TestPeriodLockstepEnds(t *testing.T) {
	var rounds periodRounds
	one, _ := strategy.NewPeriod(strategy.PeriodParallel, 3)
	strategy.Lockstep(one, 0, 1, 0, recordRounds{&rounds})
	periodSchedules(t, figure1, one, engine.Config{})
	for _, end := range []string{"bug", ""} {
		s, _ := strategy.NewPeriod(strategy.PeriodParallel, 3)
		strategy.Lockstep(s, 1, 2, 0, replayRounds{rounds: rounds[:3], index: 1, count: 2, end: end})
		rep := engine.Explore(figure1, engine.Config{Strategy: s, MaxSteps: 10_000})
		switch {
		case end != "" && (rep.Stopped != end || rep.Err != nil):
			t.Errorf("another part ended (%s): stopped %q, %v", end, rep.Stopped, rep.Err)
		case end == "" && (rep.Stopped != "error" || rep.Err == nil):
			t.Errorf("the exchange failed: stopped %q, %v", rep.Stopped, rep.Err)
		}
		t.Logf("%s: %s %v", end, rep.Stopped, rep.Err)
	}
}

// isSubsequence returns how many of a's elements appear in b in the same order (len(a) when
// a is a subsequence of b).
func isSubsequence(a, b []string) int {
	i := 0
	for _, x := range b {
		if i < len(a) && a[i] == x {
			i++
		}
	}
	return i
}
