package strategy

import (
	"fmt"
	"testing"

	"github.com/interleave-dev/interleave/engine"
)

// unbudgeted hides a strategy's SetBudget from Explore: the search keeps every work item.
type unbudgeted struct{ *Systematic }

func (u unbudgeted) SetBudget(int) {}

// TestSystematicKeepsNoMoreItemsThanTheBudget runs IPB and IDB on a program whose later
// bounds have far more branches than the run's 300 executions, with the run's bound and
// without it: the same schedules in the same order, and with it no more work items waiting
// than the bound.
func TestSystematicKeepsNoMoreItemsThanTheBudget(t *testing.T) {
	const n = 300
	for _, mk := range []func() *Systematic{
		func() *Systematic { return NewIPB(-1) },
		func() *Systematic { return NewIDB(-1) },
	} {
		name := mk().Name()
		t.Run(name, func(t *testing.T) {
			body := counters(4, 0, 6)
			capped := mk()
			got, _ := schedules(t, body, capped, n)
			all := mk()
			want, _ := schedules(t, body, unbudgeted{all}, n)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("execution %d:\nall items kept: %s\nbudget of %d:   %s", i+1, want[i], n, got[i])
				}
			}
			kept, waiting := capped.waiting(len(capped.buckets)), all.waiting(len(all.buckets))
			t.Logf("bound %d; items waiting: %d without the budget, %d with it", capped.bound, waiting, kept)
			if !capped.capped || kept > n || waiting <= n {
				t.Fatalf("items waiting %d (capped %v) of %d without the budget: the program does not test the budget",
					kept, capped.capped, waiting)
			}
			if all.capped {
				t.Fatal("the search without the budget dropped items")
			}
		})
	}
}

// TestPortfolioPassesTheBudget: a portfolio's systematic member gets the run's bound.
func TestPortfolioPassesTheBudget(t *testing.T) {
	idb := NewIDB(-1)
	p, err := NewPortfolio(NewRandom(1), idb)
	if err != nil {
		t.Fatal(err)
	}
	exploreN(t, counters(3, 0, 4), p, 40)
	if idb.budget != 40 {
		t.Fatalf("the member's budget is %d, want the run's 40", idb.budget)
	}
}

func ExampleSystematic_Exhausted_capped() {
	s := NewIDB(-1)
	s.SetBudget(10)
	s.capped = true
	fmt.Println(s.Exhausted())
	// Output: 0 schedules explored; branches beyond the run's 10 executions were not kept
}

var _ engine.Budgeted = (*Systematic)(nil)
