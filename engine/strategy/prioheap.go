package strategy

import (
	"cmp"

	"github.com/interleave-dev/interleave/engine"
)

// prioEntry is a goroutine's priority in a prioHeap.
type prioEntry[P cmp.Ordered] struct {
	prio P
	g    engine.GID
}

// prioHeap is a max-heap of goroutines by priority, for the strategies that run the enabled
// goroutine with the highest one among thousands (PCT, POS in batches). Entries are not
// updated in place: a strategy pushes a goroutine's new priority and drops the old entry when
// it comes to the top (topEnabled). It is written out rather than container/heap's, whose
// methods are called through an interface at every comparison of a step's choice.
type prioHeap[P cmp.Ordered] []prioEntry[P]

// topEnabled returns the highest entry that is current and whose goroutine is enabled, and
// whether there is one. Entries found not current are dropped for good; those of goroutines
// not enabled are set aside in *parked (scratch, emptied first) and put back before it returns.
func (h *prioHeap[P]) topEnabled(current func(prioEntry[P]) bool, enabled func(engine.GID) bool, parked *[]prioEntry[P]) (prioEntry[P], bool) {
	*parked = (*parked)[:0]
	var top prioEntry[P]
	found := false
	for len(*h) > 0 {
		e := (*h)[0]
		if !current(e) {
			h.pop()
			continue
		}
		if enabled(e.g) {
			top, found = e, true
			break
		}
		*parked = append(*parked, h.pop())
	}
	for _, e := range *parked {
		h.push(e)
	}
	return top, found
}

func (h *prioHeap[P]) push(e prioEntry[P]) {
	s := append(*h, e)
	i := len(s) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if s[parent].prio >= s[i].prio {
			break
		}
		s[parent], s[i] = s[i], s[parent]
		i = parent
	}
	*h = s
}

// pop removes the top entry and returns it.
func (h *prioHeap[P]) pop() prioEntry[P] {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	i := 0
	for {
		l, r, big := 2*i+1, 2*i+2, i
		if l < len(s) && s[l].prio > s[big].prio {
			big = l
		}
		if r < len(s) && s[r].prio > s[big].prio {
			big = r
		}
		if big == i {
			break
		}
		s[i], s[big] = s[big], s[i]
		i = big
	}
	*h = s
	return top
}
