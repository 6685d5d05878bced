package strategy

import (
	"fmt"
	"slices"
	"testing"

	"github.com/interleave-dev/interleave/engine"
)

// rrChildren is the round-robin order spelled out (SCTBench §3, "DFS"): the enabled
// goroutines in id order from the last one, wrapping around; after a yield by a goroutine
// still enabled, from the one after it, without it (unless it is the only one).
func rrChildren(en []engine.GID, last engine.GID, lastEnabled bool, lastOp engine.OpKind) []engine.GID {
	start := max(last, 0)
	yielded := lastOp == engine.OpYield && lastEnabled && len(en) > 1
	if yielded {
		start = last + 1
	}
	i := 0
	for i < len(en) && en[i] < start {
		i++
	}
	var children []engine.GID
	for j := range en {
		if g := en[(i+j)%len(en)]; !yielded || g != last {
			children = append(children, g)
		}
	}
	return children
}

// TestRoundRobinOrder checks rrOrder, which keeps where the order starts and its length,
// against the list of children spelled out, for every child of decisions of every shape:
// the last goroutine enabled or not, first, in the middle or last in id order, after a yield
// or not, alone or among others.
func TestRoundRobinOrder(t *testing.T) {
	sets := [][]engine.GID{{0}, {3}, {0, 1}, {1, 4, 5}, {0, 2, 3, 7, 64, 65, 130}}
	for _, en := range sets {
		for last := engine.NoGoroutine; last <= 131; last++ {
			lastEnabled := slices.Contains(en, last)
			for _, op := range []engine.OpKind{engine.OpWrite, engine.OpYield} {
				d := (&engine.Decision{Last: last, LastEnabled: lastEnabled, LastOp: op}).WithEnabled(en...)
				want := rrChildren(en, last, lastEnabled, op)
				o := roundRobin(d)
				var got []engine.GID
				for i := range o.n {
					got = append(got, o.child(d, i))
				}
				name := fmt.Sprintf("enabled %v, last %v (enabled %v), %v", en, last, lastEnabled, op)
				if !slices.Equal(got, want) {
					t.Errorf("%s: children %v, want %v", name, got, want)
				}
				yielded := op == engine.OpYield && lastEnabled && len(en) > 1
				if wantPreemptive := lastEnabled && !yielded; o.preemptive != wantPreemptive {
					t.Errorf("%s: preemptive %v, want %v", name, o.preemptive, wantPreemptive)
				}
			}
		}
	}
}
