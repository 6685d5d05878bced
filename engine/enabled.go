// Which goroutines can run: the enabled set, the queues of goroutines waiting on an object,
// and how a change of the object re-evaluates its waiters (notify), one by one or, for a
// mutex's waiters, a word of the set at a time.

package engine

import (
	"math/bits"
	"slices"
)

// blocker says whether a goroutine's pending operation can proceed.
type blocker interface {
	ready(g *goroutine) bool
}

// waitq is the list of goroutines waiting for an object's state to change.
type waitq struct {
	ids []GID
	// uniform says every waiter waits for the same state of the object (a mutex to be
	// unlocked): they can all proceed or none can, so notify asks the first. A uniform
	// queue's order does not matter: a waiter leaves it in constant time (goroutine.uqIndex).
	uniform bool
	// For a uniform queue: its waiters as a set too, so that notify enables or disables them
	// all a word at a time (flipGroup), and the step at which it last enabled them, which
	// stands for each member's since (Exec.sinceOf).
	members enabledSet
	onStep  int
	// nOn counts the members that are enabled, so that flipGroup sees at once whether all of
	// them are the other way.
	nOn int
}

func (q *waitq) add(g *goroutine) {
	if q.uniform {
		g.uq, g.uqIndex = q, len(q.ids)
		q.members.grow(int(g.id) + 1)
		q.members.set(g.id, true)
		if g.enabled() {
			q.nOn++
		}
	}
	q.ids = append(q.ids, g.id)
}

func (q *waitq) remove(g *goroutine) {
	if q.uniform {
		// A waiter leaves the queue once picked, which records its since (decide): what the
		// queue's onStep stood for is not needed after.
		last := len(q.ids) - 1
		moved := q.ids[last]
		q.ids[g.uqIndex] = moved
		g.e.gs[moved].uqIndex = g.uqIndex
		q.ids = q.ids[:last]
		q.members.set(g.id, false)
		if g.enabled() {
			q.nOn--
		}
		g.uq = nil
		return
	}
	if i := slices.Index(q.ids, g.id); i >= 0 {
		q.ids = slices.Delete(q.ids, i, i+1)
	}
}

// setEnabled records whether g can be picked.
func (e *Exec) setEnabled(g *goroutine, on bool) {
	if e.en.has(g.id) == on {
		return
	}
	e.flip(g.id, on)
	if !e.enabledOK {
		return
	}
	if len(e.enabled) >= sortedInsertMax {
		// Cheaper to rebuild the list from en if a strategy asks for it than to move its tail.
		e.enabledOK = false
		return
	}
	// Written out, not slices.Insert and Delete: setEnabled runs deep in a scheduling point
	// (a timer firing inside decide), on the stack of a goroutine the program started, and
	// one more frame there can cost a copy of that stack.
	en := e.enabled
	i := 0
	for i < len(en) && en[i] < g.id {
		i++
	}
	if on {
		en = append(en, 0)
		copy(en[i+1:], en[i:])
		en[i] = g.id
		e.enabled = en
		return
	}
	if i < len(en) && en[i] == g.id {
		e.enabled = append(en[:i], en[i+1:]...)
	}
}

// sortedInsertMax is the length of the enabled list from which setEnabled stops keeping it
// sorted by insertion and leaves it to be rebuilt.
const sortedInsertMax = 64

// flip changes whether goroutine id is enabled, leaving e.enabled to the caller.
func (e *Exec) flip(id GID, on bool) {
	e.en.set(id, on)
	q := e.gs[id].uq
	if on {
		e.nEnabled++
		e.since[id] = e.steps
		if q != nil {
			q.nOn++
		}
	} else {
		e.nEnabled--
		e.jumps[id] = e.clock.jumps
		if q != nil {
			q.nOn--
		}
	}
}

// enabledList returns the enabled goroutines in id order, rebuilding the list if a change
// left it out of date.
func (e *Exec) enabledList() []GID {
	if !e.enabledOK {
		e.enabled = e.en.appendTo(e.enabled[:0])
		e.enabledOK = true
	}
	return e.enabled
}

// enabledAt returns the i-th enabled goroutine in id order, without building the list.
func (e *Exec) enabledAt(i int) GID {
	if e.enabledOK {
		return e.enabled[i]
	}
	return e.en.nth(i)
}

// groupFlips enables flipGroup; the tests turn it off to compare it with one-by-one flips.
var groupFlips = true

// flipGroup enables (on) or disables every waiter of the uniform queue q a word of the
// enabled set at a time, when every one of them is the other way — the case of a mutex's
// waiters at each Lock and Unlock —, recording the step of enabling them in q; it returns
// false, changing nothing, when some waiter already is as on says, so that each goroutine's
// since stays exactly what flipping them one by one would make it. Their jumps (the clock's
// jumps when disabled) are not recorded: they are read only for goroutines blocked in a channel
// operation (synctest.go, parked), never for a mutex's waiters, and a waiter's next disabling
// after it leaves the queue records them anew.
func (e *Exec) flipGroup(q *waitq, on bool) bool {
	if on && q.nOn != 0 || !on && q.nOn != len(q.ids) {
		return false
	}
	if on {
		e.en.addAll(&q.members)
	} else {
		e.en.removeAll(&q.members)
	}
	if on {
		q.onStep = e.steps
		e.nEnabled += len(q.ids)
		q.nOn = len(q.ids)
	} else {
		e.nEnabled -= len(q.ids)
		q.nOn = 0
	}
	e.enabledOK = false
	return true
}

// sinceOf is the step since which goroutine id has been enabled and not picked (fair.go), or
// since which it was last enabled: its own record, or its uniform queue's last flip on.
func (e *Exec) sinceOf(id GID) int {
	s := e.since[id]
	if q := e.gs[id].uq; q != nil && q.onStep > s {
		return q.onStep
	}
	return s
}

// enabled reports whether g can be picked (or is running).
func (g *goroutine) enabled() bool { return g.e.en.has(g.id) }

// notifyOneByOne is the number of waiters up to which notify updates the enabled list one
// goroutine at a time (a sorted insertion each); with more, it flips them in the enabled set
// and leaves the list to be rebuilt if a strategy asks for it, so that a mutex many goroutines
// wait for costs a pass over the set's words, not a sorted insertion per waiter.
const notifyOneByOne = 8

// notify re-evaluates the goroutines waiting in q after the object behind q changed.
func (e *Exec) notify(q *waitq) {
	if len(q.ids) <= notifyOneByOne {
		for _, id := range q.ids {
			w := e.gs[id]
			e.setEnabled(w, w.blockedOn.ready(w))
		}
		return
	}
	changed := false
	if q.uniform {
		first := e.gs[q.ids[0]]
		on := first.blockedOn.ready(first)
		if groupFlips && e.flipGroup(q, on) {
			return
		}
		for _, id := range q.ids {
			if e.en.has(id) != on {
				e.flip(id, on)
				changed = true
			}
		}
	} else {
		for _, id := range q.ids {
			w := e.gs[id]
			if on := w.blockedOn.ready(w); on != e.en.has(id) {
				e.flip(id, on)
				changed = true
			}
		}
	}
	if changed {
		e.enabledOK = false
	}
}

// poll re-evaluates goroutines waiting on objects the engine cannot observe.
func (e *Exec) poll() {
	for _, g := range e.polled {
		e.setEnabled(g, g.blockedOn.ready(g))
	}
	if len(e.watches) > 0 {
		e.pollWatches()
	}
}

// enabledSet is the set of enabled goroutines as one bit per GID: the sorted list of them
// (Exec.enabled) is rebuilt from it a word at a time. The set also counts its members by
// block of enabledBlockWords words, so that the i-th of them (a random walk's pick) is found by
// a pass over the blocks' counts and the words of one block, not over every word: a few tens
// of reads at 10,000 goroutines instead of 157 word counts.
type enabledSet struct {
	words  []uint64
	blocks []int32 // blocks[k]: the members among words[k*enabledBlockWords:][:enabledBlockWords]
}

const (
	enabledBlockShift = 4
	enabledBlockWords = 1 << enabledBlockShift
)

func (s *enabledSet) reset() {
	clear(s.words)
	s.words = s.words[:0]
	clear(s.blocks)
	s.blocks = s.blocks[:0]
}

// grow makes room for n goroutines.
func (s *enabledSet) grow(n int) {
	for len(s.words)*64 < n {
		s.words = append(s.words, 0)
	}
	for len(s.blocks)<<enabledBlockShift < len(s.words) {
		s.blocks = append(s.blocks, 0)
	}
}

func (s *enabledSet) has(g GID) bool { return s.words[g>>6]&(1<<(g&63)) != 0 }

// set adds g to the set (on) or removes it.
func (s *enabledSet) set(g GID, on bool) {
	w, bit := &s.words[g>>6], uint64(1)<<(g&63)
	switch {
	case on && *w&bit == 0:
		*w |= bit
		s.blocks[g>>(6+enabledBlockShift)]++
	case !on && *w&bit != 0:
		*w &^= bit
		s.blocks[g>>(6+enabledBlockShift)]--
	}
}

// addAll adds the members of o, none of which is in s, a word and a block's count at a time
// (o's own count of its members in the block). o is no longer than s.
func (s *enabledSet) addAll(o *enabledSet) {
	for i, m := range o.words {
		s.words[i] |= m
	}
	for b, n := range o.blocks {
		s.blocks[b] += n
	}
}

// removeAll removes the members of o, every one of which is in s, as addAll adds them.
func (s *enabledSet) removeAll(o *enabledSet) {
	for i, m := range o.words {
		s.words[i] &^= m
	}
	for b, n := range o.blocks {
		s.blocks[b] -= n
	}
}

// appendTo appends the goroutines of the set to ids in increasing order.
func (s *enabledSet) appendTo(ids []GID) []GID {
	for i, w := range s.words {
		for w != 0 {
			ids = append(ids, GID(i<<6+bits.TrailingZeros64(w)))
			w &= w - 1
		}
	}
	return ids
}

// nth returns the set's i-th goroutine in increasing order (0 ≤ i < the set's size).
func (s *enabledSet) nth(i int) GID {
	for b, n := range s.blocks {
		if i >= int(n) {
			i -= int(n)
			continue
		}
		start := b << enabledBlockShift
		for k, w := range s.words[start:min(start+enabledBlockWords, len(s.words))] {
			n := bits.OnesCount64(w)
			if i >= n {
				i -= n
				continue
			}
			for ; i > 0; i-- {
				w &= w - 1
			}
			return GID((start+k)<<6 + bits.TrailingZeros64(w))
		}
		break
	}
	panic("engine: enabledSet.nth out of range")
}

// next returns the set's first goroutine whose id is at least g, or NoGoroutine.
func (s *enabledSet) next(g GID) GID {
	if g < 0 {
		g = 0
	}
	k := int(g >> 6)
	if k >= len(s.words) {
		return NoGoroutine
	}
	w := s.words[k] &^ (1<<(g&63) - 1)
	for w == 0 {
		k++
		if k == len(s.words) {
			return NoGoroutine
		}
		w = s.words[k]
	}
	return GID(k<<6 + bits.TrailingZeros64(w))
}

// rank returns the number of the set's goroutines whose id is less than g.
func (s *enabledSet) rank(g GID) int {
	if g <= 0 {
		return 0
	}
	k := min(int(g>>6), len(s.words))
	n := 0
	for _, c := range s.blocks[:k>>enabledBlockShift] {
		n += int(c)
	}
	for _, w := range s.words[k&^(enabledBlockWords-1) : k] {
		n += bits.OnesCount64(w)
	}
	if k < len(s.words) {
		n += bits.OnesCount64(s.words[k] & (1<<(g&63) - 1))
	}
	return n
}
