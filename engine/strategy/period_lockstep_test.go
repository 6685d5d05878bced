package strategy_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// periodRounds is every round's outcomes of a lockstep search.
type periodRounds [][]strategy.PeriodOutcome

// recordRounds is the exchanger of a lockstep search of one part: it keeps the rounds.
type recordRounds struct{ rounds *periodRounds }

func (r recordRounds) Exchange(round int, mine []strategy.PeriodOutcome) ([]strategy.PeriodOutcome, string, error) {
	if round != len(*r.rounds) {
		return nil, "", fmt.Errorf("round %d after %d rounds", round, len(*r.rounds))
	}
	*r.rounds = append(*r.rounds, slices.Clone(mine))
	return mine, "", nil
}

// replayRounds stands for the other parts of a lockstep search: it answers each round with
// the outcomes the one-part search recorded, after checking that this part's executions
// executed the same key points as the recorded ones.
type replayRounds struct {
	rounds periodRounds
	end    string // said after the recorded rounds, "" for an error
}

func (r replayRounds) Exchange(round int, mine []strategy.PeriodOutcome) ([]strategy.PeriodOutcome, string, error) {
	if round >= len(r.rounds) {
		if r.end != "" {
			return nil, r.end, nil
		}
		return nil, "", fmt.Errorf("round %d: the recorded search had %d", round, len(r.rounds))
	}
	all := r.rounds[round]
	var points []engine.Pos // the round's new racy points
	for _, o := range all {
		points = append(points, o.Points...)
	}
	for _, m := range mine {
		recorded := strategy.PeriodOutcome{Seq: m.Seq} // supported by its job's slice
		if i := slices.IndexFunc(all, func(o strategy.PeriodOutcome) bool { return o.Seq == m.Seq }); i >= 0 {
			recorded = all[i]
		}
		if !slices.Equal(recorded.Counts, m.Counts) || recorded.Key != m.Key {
			return nil, "", fmt.Errorf("round %d: execution %d executed the slice %v %s, the recorded one %v %s", round, m.Seq, m.Counts, m.Key, recorded.Counts, recorded.Key)
		}
		// A race this part saw first may have been seen earlier in the round by another
		// part: its positions are among the round's.
		for _, p := range m.Points {
			if !slices.Contains(points, p) {
				return nil, "", fmt.Errorf("round %d: execution %d found the new racy point %s, not among the round's %q", round, m.Seq, p, points)
			}
		}
	}
	return all, "", nil
}

// periodSchedules explores body with s and returns the schedule of every execution, in order.
func periodSchedules(t *testing.T, body func(*engine.T), s *strategy.Period, cfg engine.Config) ([]string, *engine.Report) {
	t.Helper()
	var schedules []string
	cfg.Strategy, cfg.KeepGoing, cfg.MaxSteps = s, true, 10_000
	cfg.OnExecution = func(int, *engine.Result) { schedules = append(schedules, s.Schedule()) }
	rep := engine.Explore(body, cfg)
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
			switch {
			case tt.racy:
				// In step, new points restart the search at the round's end, not right after
				// the execution that found them: the one-part search is the reference.
				if wholeRep.RacyPointsGrew == 0 || oneRep.RacyPointsGrew == 0 || !slices.Equal(oneRep.RacyPoints, wholeRep.RacyPoints) {
					t.Fatalf("racy points grew %d times to %q in lockstep, %d times to %q alone", oneRep.RacyPointsGrew, oneRep.RacyPoints, wholeRep.RacyPointsGrew, wholeRep.RacyPoints)
				}
				whole, wholeRep = got, oneRep
			case !slices.Equal(got, whole) || oneRep.Stopped != wholeRep.Stopped || oneRep.Exhausted != wholeRep.Exhausted:
				t.Fatalf("one part in lockstep: %d schedules, %s %q; alone: %d, %s %q", len(got), oneRep.Stopped, oneRep.Exhausted, len(whole), wholeRep.Stopped, wholeRep.Exhausted)
			}
			for _, parts := range []int{2, 3} {
				for i := range parts {
					s := newPeriod()
					if err := strategy.Lockstep(s, i, parts, tt.budget, replayRounds{rounds: rounds}); err != nil {
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
		strategy.Lockstep(s, 1, 2, 0, replayRounds{rounds: rounds[:3], end: end})
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
