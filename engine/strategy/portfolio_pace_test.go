package strategy_test

import (
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// pacedRun runs body under p once per execution, up to limit, telling p before each that
// left(n) executions are left after the n run so far (engine.Paced, as Explore does from its
// time budget); it returns the member of each execution and the number of the first with a
// bug (0: none).
func pacedRun(t *testing.T, body func(*engine.T), p *strategy.Portfolio, left func(n int) int, limit int) (members []string, firstBug int) {
	t.Helper()
	for n := 0; n < limit; n++ {
		p.SetExecutionsLeft(left(n))
		r := engine.Run(body, p, engine.Config{MaxSteps: 1_000_000})
		if r.Err != nil {
			t.Fatalf("execution %d: %v", n+1, r.Err)
		}
		members = append(members, p.Params()["member"])
		if r.Bug != nil && firstBug == 0 {
			firstBug = n + 1
		}
	}
	return members, firstBug
}

// TestPortfolioSitsOut: told how many executions its time budget has left (engine.Paced), the
// default portfolio leaves out of its rotation the members whose warm-up is longer than their
// share of them — greybox and stride, each a hundred executions, and IDB once its executions
// make more decisions than its share (its next level's schedules) — and the others take
// their turns; with no time budget (-1), or a share past every warm-up, the rotation is the
// round-robin of every member; when every member would sit out, none does.
func TestPortfolioSitsOut(t *testing.T) {
	all := "pct pos stride idb period greybox unfair-idb pct pos stride"
	for _, tc := range []struct {
		name    string
		members string // "" for the default
		left    int    // executions left, before each execution
		want    string // the members of the first ten executions
	}{
		{"no time budget", "", -1, all},
		{"ample", "", 7 * 1000, all},
		{"a share of 50", "", 7 * 50, "pct pos idb period unfair-idb pct pos period pct pos"},
		{"only learners", "greybox+stride:p=0.0216", 0, "greybox stride greybox stride greybox stride greybox stride greybox stride"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			params := map[string]string{}
			if tc.members != "" {
				params["members"] = tc.members
			}
			s, err := strategy.New("portfolio", params, 1)
			if err != nil {
				t.Fatal(err)
			}
			// chainReverse(2, 100): about 200 decisions an execution, more than a share of 50.
			members, _ := pacedRun(t, chainReverse(2, 100), s.(*strategy.Portfolio), func(int) int { return tc.left }, 10)
			if got := strings.Join(members, " "); got != tc.want {
				t.Errorf("members\n\t%s\nwant\n\t%s", got, tc.want)
			}
		})
	}
}

// TestPortfolioPacedFindsInFewExecutions: a bug that needs three goroutines of 200 steps each
// to run one after another in reverse order (chainReverse: found by PCT's priorities and
// PERIOD's serial schedules, never by a random walk, which switches goroutines every few
// steps) under a time budget that holds 60 executions: with the learners sitting out, PCT and
// PERIOD run most of them and find it for each of seeds 1–10; with the rotation of all seven
// members, 2 of the 10 seeds did.
func TestPortfolioPacedFindsInFewExecutions(t *testing.T) {
	const budget = 60
	for seed := uint64(1); seed <= 10; seed++ {
		s, err := strategy.New("portfolio", nil, seed)
		if err != nil {
			t.Fatal(err)
		}
		members, first := pacedRun(t, chainReverse(3, 200), s.(*strategy.Portfolio), func(n int) int { return budget - n }, budget)
		if first == 0 {
			t.Errorf("seed %d: no bug in %d executions (%s)", seed, budget, strings.Join(members, " "))
		}
	}
}
