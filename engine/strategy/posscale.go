package strategy

import (
	"math"
	"math/bits"

	"github.com/interleave-dev/interleave/engine"
)

// POS among thousands of goroutines.
//
// POS as written in pos.go looks at every enabled goroutine at every decision, and draws a
// priority for each one whose event was reassigned: after a mutex that 10,000 goroutines wait
// for is unlocked, each decision draws up to 10,000 priorities, and an execution is quadratic
// in the number of goroutines (issue 19). Once posScaleFrom goroutines are enabled at a
// decision, POS keeps, for the rest of the execution, the same distribution of schedules with
// work per decision that is a pass over words of goroutine sets, not over goroutines:
//
//   - A batch is a set of goroutines whose priorities have not been drawn and are, given
//     everything the execution has compared so far, independent and uniform below the
//     batch's bound. The fresh batch, bound 1, holds the goroutines whose event is new or was
//     reassigned: a reassignment adds every goroutine pending on the object to it a word at a
//     time (each object keeps the sets of goroutines whose pending event reads or writes it).
//   - At a decision, the highest priority among a batch's c enabled members is, as the
//     maximum of c uniforms below the bound b, b·U^(1/c), and which member holds it is uniform
//     among them: two draws per batch, not c. Priorities in batches are kept as their
//     logarithms, which order them alike: the maximum is then ln b − E/c, E = −ln U an
//     exponential draw (rand's ExpFloat64, a table lookup, not a logarithm and an exponential:
//     with a thousand goroutines, those two were half of POS's time). That member gets the
//     maximum as its priority; the batch's other enabled members form a new batch whose bound
//     is that maximum (they are below it, and nothing else is known of them); its disabled
//     members stay where they were, as nothing was compared of them.
//   - Goroutines with a drawn priority are in a heap, the highest on top; one whose priority
//     was reassigned or redrawn since is dropped from it when it comes up.
//
// The enabled goroutine with the highest priority runs, as in BasicPOS; the reassignment rule
// is pos.go's. Only the random draws differ from pos.go's (which draws each priority as it is
// first compared), so the distribution of schedules is the same and the schedules of a given
// seed are not: in an execution that never has posScaleFrom goroutines enabled at once —
// every program of SCTBench (at most 101 goroutines), and most tests — POS stays as pos.go has
// it, and its executions are those it always had.

// posScaleFrom is the number of goroutines enabled at one decision from which POS switches to
// batches. Below it, a pass over the enabled goroutines costs less than the batches' upkeep (a
// worker pool of 1,025 goroutines, ten at a time, is 15% slower in batches).
const posScaleFrom = 256

// posMaxBatches bounds the batches kept: beyond it, the smallest gets its members' priorities
// drawn one by one (uniform below its bound, as they are).
const posMaxBatches = 32

// posScale is POS's state in batches.
type posScale struct {
	active bool
	// maxBatches and heapSlack are posMaxBatches and posHeapSlack (tests lower them).
	maxBatches, heapSlack int
	batches               []*posBatch // the fresh batch first (fresh)
	spare                 []*posBatch // emptied batches, for reuse
	// concrete is the goroutines whose priority (POS.prio) is drawn and current, and heap
	// their priorities, highest on top (stale entries are dropped as they surface).
	concrete gidBits
	heap     prioHeap[float64]
	// compactAt is the heap's length at which its stale entries are dropped all at once:
	// twice its length after the last compaction plus heapSlack, so that a compaction's pass
	// is paid for by as many pushes.
	compactAt int
	parked    []prioEntry[float64] // scratch: drawn priorities of disabled goroutines, put back
	list      gidBits              // scratch: the enabled set when the decision offers a list
	// chanOps and selects are the goroutines whose pending event is a channel operation, and a
	// select: a select reassigns every channel operation, and a channel operation every select.
	chanOps, selects gidSet
}

// posBatch is a set of goroutines whose undrawn priorities are independent and uniform below
// a bound, whose logarithm bound is (0: bound 1).
type posBatch struct {
	members gidBits
	n       int // the number of members
	bound   float64
}

func (b *posBatch) add(g engine.GID) {
	if !b.members.has(g) {
		b.members.add(g)
		b.n++
	}
}

func (b *posBatch) remove(g engine.GID) {
	if b.members.has(g) {
		b.members.remove(g)
		b.n--
	}
}

// clear empties b, keeping its memory.
func (b *posBatch) clear() {
	clear(b.members)
	b.members, b.n = b.members[:0], 0
}

// gidBits is a set of goroutines as bits, goroutine g at bit g%64 of word g/64.
type gidBits []uint64

func (b gidBits) has(g engine.GID) bool {
	i := int(g >> 6)
	return i < len(b) && b[i]&(1<<(g&63)) != 0
}

func (b *gidBits) add(g engine.GID) {
	i := int(g >> 6)
	for len(*b) <= i {
		*b = append(*b, 0)
	}
	(*b)[i] |= 1 << (g & 63)
}

func (b gidBits) remove(g engine.GID) {
	if i := int(g >> 6); i < len(b) {
		b[i] &^= 1 << (g & 63)
	}
}

// gidSet is the set of goroutines pending on an object: a short list while it is small, bits
// once it is not.
type gidSet struct {
	list []engine.GID
	bits gidBits
	big  bool
}

// gidSetList is the size up to which a gidSet is a list.
const gidSetList = 16

func (s *gidSet) add(g engine.GID) {
	if s.big {
		s.bits.add(g)
		return
	}
	s.list = append(s.list, g)
	if len(s.list) > gidSetList {
		for _, id := range s.list {
			s.bits.add(id)
		}
		s.list, s.big = s.list[:0], true
	}
}

func (s *gidSet) remove(g engine.GID) {
	if s.big {
		s.bits.remove(g)
		return
	}
	for i, id := range s.list {
		if id == g {
			last := len(s.list) - 1
			s.list[i] = s.list[last]
			s.list = s.list[:last]
			return
		}
	}
}

// words calls f with each word of the set that has members: its index and bits.
func (s *gidSet) words(f func(i int, m uint64)) {
	if s.big {
		for i, w := range s.bits {
			if w != 0 {
				f(i, w)
			}
		}
		return
	}
	for _, g := range s.list {
		f(int(g>>6), 1<<(g&63))
	}
}

// fresh is the batch of the goroutines whose event is new or was reassigned: bound 1.
func (s *posScale) fresh() *posBatch { return s.batches[0] }

// reset empties the scaled state for a new execution, keeping its memory.
func (s *posScale) reset() {
	s.active = false
	for _, b := range s.batches {
		b.clear()
	}
	if len(s.batches) == 0 {
		s.batches = append(s.batches, &posBatch{})
	}
	s.spare = append(s.spare, s.batches[1:]...)
	clear(s.batches[1:])
	s.batches = s.batches[:1]
	s.fresh().bound = 0 // ln 1
	clear(s.concrete)
	s.concrete = s.concrete[:0]
	s.heap = s.heap[:0]
	s.compactAt = s.heapSlack
	s.chanOps, s.selects = gidSet{}, gidSet{}
}

// newBatch returns an empty batch with the given bound (its logarithm), added to the batches.
func (s *posScale) newBatch(bound float64) *posBatch {
	var b *posBatch
	if n := len(s.spare); n > 0 {
		b, s.spare = s.spare[n-1], s.spare[:n-1]
	} else {
		b = &posBatch{}
	}
	b.bound = bound
	s.batches = append(s.batches, b)
	return b
}

// enterScale switches the execution to batches: each goroutine's event joins its objects'
// sets, and its priority, if drawn and still current, goes to the heap; otherwise the
// goroutine is fresh. Pick has applied the last step's reassignments as pos.go does.
func (p *POS) enterScale(goroutines int) {
	s := &p.scale
	s.reset()
	s.active = true
	for g := range engine.GID(goroutines) {
		p.join(g)
		if p.stale(g) {
			s.fresh().add(g)
		} else {
			p.setDrawn(g, math.Log(p.prio[g]))
		}
	}
}

// join adds g to the sets of the objects its pending event (p.events[g]) is on, and leave
// removes it from them.
func (p *POS) join(g engine.GID)  { p.eventSets(g, func(set *gidSet) { set.add(g) }) }
func (p *POS) leave(g engine.GID) { p.eventSets(g, func(set *gidSet) { set.remove(g) }) }

// eventSets calls f with each set that holds goroutine g by its pending event: its object's
// writers or readers, the channel operations, the selects.
func (p *POS) eventSets(g engine.GID, f func(*gidSet)) {
	e := &p.events[g]
	if e.obj != nil {
		if e.write {
			f(&e.obj.writes)
		} else {
			f(&e.obj.reads)
		}
	}
	if e.chanOp {
		f(&p.scale.chanOps)
	}
	if e.isSelect {
		f(&p.scale.selects)
	}
}

// setDrawn gives g the drawn priority whose logarithm is prio.
func (p *POS) setDrawn(g engine.GID, prio float64) {
	s := &p.scale
	p.prio[g] = prio
	s.concrete.add(g)
	s.heap.push(prioEntry[float64]{prio, g})
}

// makeFresh reassigns g's priority: it joins the fresh batch, out of any other.
func (p *POS) makeFresh(g engine.GID) {
	s := &p.scale
	s.concrete.remove(g)
	for _, b := range s.batches[1:] {
		b.remove(g)
	}
	s.fresh().add(g)
}

// reassign makes fresh every goroutine of set, a word at a time.
func (s *posScale) reassign(set *gidSet) {
	set.words(func(i int, m uint64) {
		if i < len(s.concrete) {
			s.concrete[i] &^= m
		}
		for _, b := range s.batches[1:] {
			if i < len(b.members) {
				b.n -= bits.OnesCount64(b.members[i] & m)
				b.members[i] &^= m
			}
		}
		f := s.fresh()
		for len(f.members) <= i {
			f.members = append(f.members, 0)
		}
		f.n += bits.OnesCount64(m &^ f.members[i])
		f.members[i] |= m
	})
}

// applyStep makes fresh the goroutines whose events the last step reassigned, and the new
// goroutines.
func (p *POS) applyStep(d *engine.Decision) {
	s := &p.scale
	if p.last >= 0 {
		op := p.executed(d)
		if op.Obj != 0 {
			o := p.object(op.Obj)
			s.reassign(&o.writes)
			if op.Kind.IsWrite() {
				s.reassign(&o.reads)
			}
		}
		if op.Kind == engine.OpSelect {
			s.reassign(&s.chanOps)
		}
		if isChanOp(op.Kind) {
			s.reassign(&s.selects)
		}
		p.leave(p.last)
		p.events[p.last] = p.event(d.Pending(p.last))
		p.join(p.last)
		p.makeFresh(p.last)
	}
	for g := len(p.prio); g < d.Goroutines; g++ {
		// drawn is pos.go's: batches do not read it.
		p.prio = append(p.prio, 0)
		p.events = append(p.events, p.event(d.Pending(engine.GID(g))))
		p.join(engine.GID(g))
		s.fresh().add(engine.GID(g))
	}
}

// decideScaled picks the enabled goroutine with the highest priority, drawing for each batch
// the maximum of its enabled members' priorities.
func (p *POS) decideScaled(d *engine.Decision) engine.GID {
	s := &p.scale
	en := gidBits(d.EnabledWords())
	if en == nil {
		en = s.listBits(d)
	}
	best, bestPrio := p.topEnabled(en)
	// Only the words that hold enabled goroutines matter.
	lo, hi := 0, len(en)
	for lo < hi && en[lo] == 0 {
		lo++
	}
	for hi > lo && en[hi-1] == 0 {
		hi--
	}
	// Each batch's enabled maximum, in the batches' order (new batches are appended after
	// those that exist now, and need no draw at this decision).
	for k, n := 0, len(s.batches); k < n; k++ {
		holder, top := p.batchMax(s.batches[k], en, lo, hi)
		if holder < 0 {
			continue
		}
		p.setDrawn(holder, top)
		if best < 0 || top > bestPrio {
			best, bestPrio = holder, top
		}
	}
	s.dropEmpty()
	if len(s.batches) > s.maxBatches {
		p.drawSmallest()
	}
	p.last, p.lastOp = best, d.Pending(best)
	return best
}

// listBits returns the enabled goroutines of a decision that offers a list, as bits.
func (s *posScale) listBits(d *engine.Decision) gidBits {
	clear(s.list)
	s.list = s.list[:0]
	for _, g := range d.Enabled() {
		s.list.add(g)
	}
	return s.list
}

// batchMax draws the highest priority among b's members enabled in en (whose words from lo to
// hi hold every enabled goroutine) and which of them holds it, and returns the two
// (NoGoroutine when none is enabled): that member is to get it as its drawn priority (the
// caller's setDrawn, one frame less deep on the goroutine's stack), and the others enabled
// form a new batch below it. The maximum of c uniforms below the bound is
// bound·U^(1/c), whose logarithm is drawn as ln bound − E/c, E exponential (−ln U).
func (p *POS) batchMax(b *posBatch, en gidBits, lo, hi int) (engine.GID, float64) {
	hi = min(hi, len(b.members))
	c := 0
	for i := lo; i < hi; i++ {
		c += bits.OnesCount64(b.members[i] & en[i])
	}
	if c == 0 {
		return engine.NoGoroutine, 0
	}
	top := b.bound - p.rng.ExpFloat64()/float64(c)
	holder := nthOfBoth(b.members[:hi], en, p.rng.IntN(c))
	p.split(b, en, lo, hi, c, holder, top)
	return holder, top
}

// split takes holder, one of the c members of b enabled in en, out of b, and leaves the others
// enabled below top: b itself when all its members are, otherwise a new batch. Apart from
// batchMax, whose frame it would enlarge under the calls it makes (Pick runs on the
// goroutine's stack; see Portfolio.Pick).
//
//go:noinline
func (p *POS) split(b *posBatch, en gidBits, lo, hi, c int, holder engine.GID, top float64) {
	switch {
	case c == b.n:
		// Every member is enabled: the others stay together, below top. The fresh batch
		// becomes such a batch, and an empty fresh batch takes its place.
		if s := &p.scale; b == s.fresh() {
			s.batches[0] = s.newBatch(0)
			s.batches[len(s.batches)-1] = b
		}
		b.bound = top
		b.remove(holder)
	default:
		// The other enabled members form a new batch below top; the disabled ones stay.
		var rest *posBatch
		if c > 1 {
			rest = p.scale.newBatch(top)
			for len(rest.members) < hi {
				rest.members = append(rest.members, 0)
			}
		}
		for i := lo; i < hi; i++ {
			if m := b.members[i] & en[i]; m != 0 {
				b.members[i] &^= m
				if rest != nil {
					rest.members[i] |= m
				}
			}
		}
		b.n -= c
		if rest != nil {
			rest.n = c
			rest.remove(holder)
		}
	}
}

// topEnabled returns the enabled goroutine with the highest drawn priority, and the priority
// (NoGoroutine when none has one). Entries whose priority is no longer current are dropped;
// those of disabled goroutines are set aside and put back.
func (p *POS) topEnabled(en gidBits) (engine.GID, float64) {
	s := &p.scale
	if len(s.heap) > s.compactAt {
		p.compactHeap()
	}
	if top, ok := s.heap.topEnabled(p.current, en.has, &s.parked); ok {
		return top.g, top.prio
	}
	return engine.NoGoroutine, 0
}

// posHeapSlack is the number of entries the heap may gain past twice its length after the
// last compaction before its stale entries are dropped all at once (posScale.compactAt).
const posHeapSlack = 1024

// current reports whether a heap entry is still its goroutine's priority.
func (p *POS) current(e prioEntry[float64]) bool {
	return p.scale.concrete.has(e.g) && p.prio[e.g] == e.prio
}

// compactHeap drops the heap's stale entries and restores the heap order.
func (p *POS) compactHeap() {
	s := &p.scale
	h := s.heap[:0]
	for _, e := range s.heap {
		if p.current(e) {
			h = append(h, e)
		}
	}
	s.heap = s.heap[:0]
	for _, e := range h {
		s.heap.push(e)
	}
	s.compactAt = 2*len(s.heap) + s.heapSlack
}

// dropEmpty removes the batches with no members, but the fresh one. Not inlined into
// decideScaled, whose frame would grow by its own.
//
//go:noinline
func (s *posScale) dropEmpty() {
	kept := s.batches[:1]
	for _, b := range s.batches[1:] {
		if b.n == 0 {
			b.clear()
			s.spare = append(s.spare, b)
			continue
		}
		kept = append(kept, b)
	}
	clear(s.batches[len(kept):])
	s.batches = kept
}

// drawSmallest draws the priorities of the smallest batch's members one by one, each uniform
// below its bound, and drops it.
func (p *POS) drawSmallest() {
	s := &p.scale
	k, size := 0, math.MaxInt
	for i, b := range s.batches[1:] {
		if b.n < size {
			k, size = i+1, b.n
		}
	}
	b := s.batches[k]
	for i, w := range b.members {
		for w != 0 {
			g := engine.GID(i<<6 + bits.TrailingZeros64(w))
			w &= w - 1
			p.setDrawn(g, b.bound-p.rng.ExpFloat64())
		}
	}
	b.clear()
	s.dropEmpty()
}

// nthOfBoth returns the k-th goroutine (from 0, in id order) of the intersection of a and b.
func nthOfBoth(a, b gidBits, k int) engine.GID {
	for i, w := range a {
		if i >= len(b) {
			break
		}
		w &= b[i]
		n := bits.OnesCount64(w)
		if k >= n {
			k -= n
			continue
		}
		for ; k > 0; k-- {
			w &= w - 1
		}
		return engine.GID(i<<6 + bits.TrailingZeros64(w))
	}
	panic("strategy: nthOfBoth out of range")
}
