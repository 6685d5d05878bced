package strategy

import (
	"github.com/interleave-dev/interleave/engine"
)

// rrOrder is the order in which SCTBench's depth-first search visits the children of a
// scheduling point (§3, "DFS"): the enabled goroutines in creation order, starting with the
// most recently executing goroutine and wrapping around (the non-preemptive round-robin
// scheduler of §2.4).
//
// After a yield (runtime.Gosched) by a goroutine that is still enabled, a switch is forced
// (§3, "Busy-wait loops"): the yielding goroutine is left out, unless it is the only enabled
// one, and the order starts at the goroutine after it, so that the yielding goroutine would
// be the last child.
//
// preemptive says whether switching away from the first child is a preemption (§2.3): the
// last goroutine is still enabled and the switch is not one forced by a yield. In both
// orders the delay count of the child at position p is p (§2.4: delays(α, t) counts the
// enabled goroutines skipped on the way from last(α) to t, which are exactly the children
// before t).
//
// The order is kept as where it starts and how many children there are, not as the list
// of them: with thousands of enabled goroutines a node costs the same, and a child is found
// when the search takes it (child).
type rrOrder struct {
	start      engine.GID // the first child is the first enabled goroutine from start, wrapping around
	n          int32      // the number of children
	preemptive bool
}

// roundRobin returns the order of the children of decision d.
func roundRobin(d *engine.Decision) rrOrder {
	start := d.Last
	if start < 0 {
		start = 0
	}
	n := d.NumEnabled()
	yielded := d.LastOp == engine.OpYield && d.LastEnabled && n > 1
	if yielded {
		start = d.Last + 1
		n--
	}
	return rrOrder{start: start, n: int32(n), preemptive: d.LastEnabled && !yielded}
}

// child returns the child at position i (0 ≤ i < o.n) of decision d, whose order is o.
func (o rrOrder) child(d *engine.Decision, i int32) engine.GID {
	if i == 0 {
		if g := d.NextEnabled(o.start); g != engine.NoGoroutine {
			return g
		}
		return d.NextEnabled(0)
	}
	n := d.NumEnabled()
	return d.EnabledAt((d.EnabledBefore(o.start) + int(i)) % n)
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
