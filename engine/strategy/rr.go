package strategy

import (
	"sort"

	"github.com/interleave-dev/interleave/engine"
)

// roundRobin appends to dst the children of a scheduling point in the order SCTBench's
// depth-first search visits them (§3, "DFS"): the enabled goroutines in creation order,
// starting with the most recently executing goroutine and wrapping around (the
// non-preemptive round-robin scheduler of §2.4).
//
// After a yield (runtime.Gosched) by a goroutine that is still enabled, a switch is forced
// (§3, "Busy-wait loops"): the yielding goroutine is left out, unless it is the only enabled
// one, and the order starts at the goroutine after it.
//
// It also reports whether switching away from the first child is a preemption (§2.3): the
// last goroutine is still enabled and the switch is not one forced by a yield. In both
// orders the delay count of the child at position p is p (§2.4: delays(α, t) counts the
// enabled goroutines skipped on the way from last(α) to t, which are exactly the children
// before t).
func roundRobin(dst []int32, d *engine.Decision) (children []int32, preemptive bool) {
	en := d.Enabled()
	start := d.Last
	if start < 0 {
		start = 0
	}
	yielded := d.LastOp == engine.OpYield && d.LastEnabled && len(en) > 1
	if yielded {
		start = d.Last + 1
	}
	i := sort.Search(len(en), func(i int) bool { return en[i] >= start })
	for j := range en {
		g := en[(i+j)%len(en)]
		if yielded && g == d.Last {
			continue
		}
		dst = append(dst, int32(g))
	}
	return dst, d.LastEnabled && !yielded
}

// A decision of a schedule is encoded as one int32: a goroutine choice as the goroutine's
// id (≥ 0), a data choice of alternative k as ^k (< 0), so that a replayed prefix also checks
// that the program asks for the same kind of decision.
func encodeChoice(k int) int32 { return ^int32(k) }

func isChoice(v int32) bool { return v < 0 }

func decodeChoice(v int32) int { return int(^v) }

// seg is one decision of a schedule prefix, in a persistent linked list: prefixes that share
// a beginning share its segs, so a work list of prefixes costs one seg per branching node
// rather than one copy of the prefix per item.
type seg struct {
	parent *seg
	v      int32
	n      int32 // length of the prefix ending with v
}

func (s *seg) len() int {
	if s == nil {
		return 0
	}
	return int(s.n)
}

func (s *seg) push(v int32) *seg { return &seg{parent: s, v: v, n: int32(s.len()) + 1} }

// appendTo writes the prefix s into dst[:s.len()], reusing dst's storage.
func (s *seg) appendTo(dst []int32) []int32 {
	n := s.len()
	if cap(dst) < n {
		dst = make([]int32, n)
	}
	dst = dst[:n]
	for p := s; p != nil; p = p.parent {
		dst[p.n-1] = p.v
	}
	return dst
}
