package engine

import (
	"math/rand/v2"
	"testing"
)

// TestEnabledSetCountsItsBlocks drives an enabledSet through random single flips and groups
// added or removed at once (as flipGroup makes) and checks, after each, that nth, rank and next answer as
// a plain list of the members does, for sets spanning one block and many.
func TestEnabledSetCountsItsBlocks(t *testing.T) {
	for _, n := range []int{5, 64, 1000, 1024, 1025, 10000} {
		r := rand.New(rand.NewPCG(uint64(n), 7))
		var s enabledSet
		s.grow(n)
		member := make([]bool, n)
		for op := 0; op < 400; op++ {
			if r.IntN(4) == 0 {
				// A group of goroutines all the other way, added or removed at once (as
				// flipGroup does a mutex's waiters).
				on := r.IntN(2) == 0
				var group enabledSet
				for g := range n {
					if member[g] != on && r.IntN(3) == 0 {
						group.grow(g + 1)
						group.set(GID(g), true)
						member[g] = on
					}
				}
				if on {
					s.addAll(&group)
				} else {
					s.removeAll(&group)
				}
			} else {
				g := r.IntN(n)
				on := r.IntN(2) == 0
				s.set(GID(g), on)
				member[g] = on
			}
			var list []GID
			for g, m := range member {
				if m {
					list = append(list, GID(g))
				}
			}
			for i, g := range list {
				if got := s.nth(i); got != g {
					t.Fatalf("n=%d op %d: nth(%d) = %d, want %d", n, op, i, got, g)
				}
			}
			probe := GID(r.IntN(n))
			want := 0
			for _, g := range list {
				if g < probe {
					want++
				}
			}
			if got := s.rank(probe); got != want {
				t.Fatalf("n=%d op %d: rank(%d) = %d, want %d", n, op, probe, got, want)
			}
			next := NoGoroutine
			if want < len(list) {
				next = list[want]
			}
			if got := s.next(probe); got != next {
				t.Fatalf("n=%d op %d: next(%d) = %d, want %d", n, op, probe, got, next)
			}
		}
	}
}
