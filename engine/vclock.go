package engine

import (
	"sync/atomic"
	"unsafe"
)

// Vector clocks for the race detector (race.go).
//
// A clock has one logical time per goroutine, indexed by GID, stored in chunks of
// clockChunkLen times, and the chunks in pages of clockPageLen. Chunks and pages are shared
// between clocks and copied on write: a join that finds a page or chunk missing from the
// receiving clock, or one the other's is at least, takes the other's itself, not a copy (and
// the next join of the two compares the pointers only). A test that starts thousands of
// goroutines which take the same mutex then costs a pass over the pages per join, and over the
// chunks of the pages that differ, not over the goroutines — the clock the mutex passes from
// holder to holder holds the pages of all earlier holders, and each new holder shares them
// instead of copying them — and the memory of a clock is what it does not share. A page once
// held by two clocks is shared for good: no clock changes it again, one that would copies it
// first, and the copy shares the chunks. That costs a copy where a count of holders would have
// found the page back with one holder, but neither sharing a page that is already shared nor
// dropping a clock writes to its pages: dropping the clocks of an execution's goroutines visits
// none of them, and the detector's arena gives them out anew in the next execution
// (chunkArena).
//
// What a join reads of a chunk it does not compare is in its page, next to the pointer: a
// stamp that names the chunk's content (a new one, unique in the process, whenever a chunk is
// made or changed), the stamp of a chunk this one is known to be at least (covers: it was
// raised to include that one, or found at least it), and whether the page is the chunk's only
// holder. The join of a WaitGroup's clock with each goroutine's at its Done, whose chunks
// differ from the goroutine's in every page (the goroutines' times after their Unlock are in
// one, the mutex's in the other), then skips the chunks it has already included by reading two
// pages, not the headers of a hundred chunks scattered in memory.

const (
	clockChunkBits = 6
	clockChunkLen  = 1 << clockChunkBits
	clockChunkMask = clockChunkLen - 1
)

type clockChunk struct {
	t [clockChunkLen]uint32
	n int32 // t[n:] are all 0
}

// clockStamps gives out the chunks' stamps: one at a time to a clock made on the heap, a
// range at a time to an arena (chunkArena.stamp).
var clockStamps atomic.Uint64

// stampRange is the number of stamps an arena takes at once.
const stampRange = 1 << 16

// clockPage holds clockPageLen chunks of a clock: the times of 1,024 consecutive goroutines.
// With 10,000 goroutines a join is a pass over 10 pages, and over the 16 chunks of those that
// differ, not over 157 chunks.
type clockPage struct {
	c [clockPageLen]*clockChunk
	// stamp[j] names c[j]'s content; covers[j] is the stamp of a chunk c[j] is at least (while
	// that one has it: times only grow).
	stamp, covers [clockPageLen]uint64
	// owned has bit j set when this page is c[j]'s only holder, which may then change it.
	owned uint16
	// shared says the page has been held by two clocks: it does not change any more.
	shared bool
}

const (
	clockPageBits = 4
	clockPageLen  = 1 << clockPageBits
	clockPageMask = clockPageLen - 1
)

// vclock is a vector clock: p[i].c[j] holds the times of goroutines
// (i*clockPageLen+j)*clockChunkLen and on (a nil page or chunk: all 0).
type vclock struct {
	p []*clockPage
	// owner is the goroutine whose clock this is, plus one (0: an object's clock), and
	// ownTime its own time, kept out of the chunks: the increment after each release (race.go)
	// then writes no chunk — the chunk holding it is usually shared with the object released
	// to, and would be copied. The chunks' entry for the owner is ignored: no other clock's
	// view of a goroutine's time is later than its own.
	owner   GID
	ownTime uint32
	// arena is where v makes its chunks and pages (nil: the heap). A goroutine's clock gets
	// the detector's (adopt); an object's clock takes the arena of the first clock joined into
	// it.
	arena *chunkArena
}

// adopt makes v goroutine g's clock, its own time 0, its chunks made in arena.
func (v *vclock) adopt(g GID, arena *chunkArena) { v.owner, v.ownTime, v.arena = g+1, 0, arena }

// chunkArena makes the chunks and pages of an execution's clocks, and makes them again in the
// next: every clock of an execution is dropped when it ends (the goroutines' are released, the
// objects' go with their shadows), so its chunks can be given out anew without the collector
// (reset). A test that starts thousands of goroutines copies a few chunks for each — most of
// what it allocated, and deep in a scheduling point, where the allocator's slow path grew new
// goroutines' stacks.
type chunkArena struct {
	chunks arenaOf[clockChunk]
	pages  arenaOf[clockPage]
	// nextStamp is the next stamp of the arena's range, which ends at endStamp: an atomic
	// increment per stamp, a barrier on most processors, cost as much as a chunk's copy.
	nextStamp, endStamp uint64
}

// stamp returns a new stamp, unique in the process.
func (a *chunkArena) stamp() uint64 {
	if a == nil {
		return clockStamps.Add(1)
	}
	if a.nextStamp == a.endStamp {
		a.endStamp = clockStamps.Add(stampRange)
		a.nextStamp = a.endStamp - stampRange + 1
		a.endStamp++
	}
	s := a.nextStamp
	a.nextStamp++
	return s
}

// arenaOf gives out values of T from blocks it keeps from one execution to the next.
type arenaOf[T any] struct {
	blocks [][]T
	used   int // values given out in this execution
}

// chunkArenaBlock is the number of values an arena allocates at once.
const chunkArenaBlock = 128

// make returns a zero T. It inlines, and the block it rarely needs is made out of line: a
// scheduling point of a new goroutine runs it on the goroutine's first stack, where every
// frame counts (a frame past the stack's end makes the runtime copy the stack).
func (a *arenaOf[T]) make() *T {
	if a.used == len(a.blocks)*chunkArenaBlock {
		a.addBlock()
	}
	x := &a.blocks[a.used/chunkArenaBlock][a.used%chunkArenaBlock]
	a.used++
	var zero T
	*x = zero
	return x
}

//go:noinline
func (a *arenaOf[T]) addBlock() {
	a.blocks = append(a.blocks, make([]T, chunkArenaBlock))
	var zero T
	engineMade.Add(chunkArenaBlock * uint64(unsafe.Sizeof(zero)))
}

// makeChunk returns a chunk of all 0.
func (a *chunkArena) makeChunk() *clockChunk {
	if a == nil {
		return new(clockChunk)
	}
	return a.chunks.make()
}

// makePage returns a page of nil chunks.
func (a *chunkArena) makePage() *clockPage {
	if a == nil {
		return new(clockPage)
	}
	return a.pages.make()
}

// reset gives out every chunk and page anew: no clock of the last execution is left.
func (a *chunkArena) reset() { a.chunks.used, a.pages.used = 0, 0 }

// chunk returns chunk i of v (nil: all 0).
func (v *vclock) chunk(i int) *clockChunk {
	if pi := i >> clockPageBits; pi < len(v.p) {
		if p := v.p[pi]; p != nil {
			return p.c[i&clockPageMask]
		}
	}
	return nil
}

func (v *vclock) get(g GID) uint32 {
	if g+1 == v.owner {
		return v.ownTime
	}
	if c := v.chunk(int(g) >> clockChunkBits); c != nil {
		return c.t[g&clockChunkMask]
	}
	return 0
}

func (v *vclock) set(g GID, t uint32) {
	if g+1 == v.owner {
		v.ownTime = t
		return
	}
	p, j := v.own(int(g) >> clockChunkBits)
	c, k := p.c[j], int32(g&clockChunkMask)
	c.t[k] = t
	c.n = max(c.n, k+1)
	p.stamp[j] = v.arena.stamp()
}

// own makes chunk i of v, and its page, v's alone (made or copied), and returns the page and
// the chunk's index in it. The caller that changes the chunk gives it a new stamp.
func (v *vclock) own(i int) (*clockPage, int) {
	p := v.ownPage(i >> clockPageBits)
	j := i & clockPageMask
	if p.owned&(1<<j) == 0 {
		v.ownChunk(p, j)
	}
	return p, j
}

// ownChunk makes chunk j of page p, which v alone holds, p's alone: a copy of the chunk there,
// or a new one.
func (v *vclock) ownChunk(p *clockPage, j int) {
	c := v.arena.makeChunk()
	if old := p.c[j]; old != nil {
		c.n = old.n
		copy(c.t[:old.n], old.t[:old.n])
	} else {
		p.stamp[j], p.covers[j] = v.arena.stamp(), 0
	}
	p.c[j] = c
	p.owned |= 1 << j
}

// ownPage returns page i of v, made or copied so that v is its only holder.
func (v *vclock) ownPage(i int) *clockPage {
	if i < len(v.p) {
		if p := v.p[i]; p != nil && !p.shared {
			return p
		}
	}
	return v.newPage(i)
}

// newPage makes page i of v anew: empty, or a copy of the shared page there, which holds its
// chunks, as neither's only holder.
func (v *vclock) newPage(i int) *clockPage {
	if i >= len(v.p) {
		v.grow(i + 1)
	}
	p := v.arena.makePage()
	if old := v.p[i]; old != nil {
		// Slice copies: an array assignment could go through a temporary in the frame.
		copy(p.c[:], old.c[:])
		copy(p.stamp[:], old.stamp[:])
		copy(p.covers[:], old.covers[:])
	}
	v.p[i] = p
	return p
}

// grow makes v n pages long, the new ones nil.
func (v *vclock) grow(n int) {
	if n <= cap(v.p) {
		v.p = v.p[:n]
		return
	}
	old := cap(v.p)
	v.p = append(v.p, make([]*clockPage, n-len(v.p))...)
	engineMade.Add(uint64(cap(v.p)-old) * uint64(unsafe.Sizeof((*clockPage)(nil))))
}

// join makes v the element-wise maximum of v and o.
func (v *vclock) join(o vclock) {
	if v.arena == nil {
		v.arena = o.arena
	}
	if len(v.p) < len(o.p) {
		v.grow(len(o.p))
	}
	for i, op := range o.p {
		p := v.p[i]
		if op == nil || p == op {
			continue
		}
		if p == nil || atMost(p, op) {
			// o's page is at least v's: hold it instead of raising v's to it, so that the
			// next join of the two compares one pointer.
			op.shared = true
			v.p[i] = op
			continue
		}
		v.joinPage(i, op)
	}
	if o.owner != 0 && o.owner != v.owner {
		if g := o.owner - 1; o.ownTime > v.get(g) {
			v.set(g, o.ownTime)
		}
	}
}

// atMost reports whether every time of page p is at most op's, and records what it finds of
// each chunk of op in op.covers.
func atMost(p, op *clockPage) bool {
	for j, c := range p.c {
		oc := op.c[j]
		if c == oc || c == nil || oc != nil && op.covers[j] == p.stamp[j] {
			continue
		}
		if oc == nil || p.covers[j] == op.stamp[j] || c.exceeds(oc) {
			// c is known to be at least oc (and is another chunk): likely later somewhere,
			// and the join's pass over the page that follows skips it without a compare. A
			// WaitGroup's clock, joined at each Done with a goroutine that took the mutex's
			// pages, finds here the chunks it raised at the earlier Dones.
			return false
		}
		op.covers[j] = p.stamp[j]
	}
	return true
}

// joinPage makes page i of v the element-wise maximum of it and op, chunk by chunk: a chunk of
// op at least v's replaces it (v then shares it), and v's chunks op has later times than are
// raised.
func (v *vclock) joinPage(i int, op *clockPage) {
	for j, oc := range op.c {
		p := v.p[i]
		c := p.c[j]
		switch {
		case oc == nil || c == oc || p.covers[j] == op.stamp[j]:
			continue // c is at least oc
		case c == nil || op.covers[j] == p.stamp[j]:
			// oc is at least c.
		case !oc.exceeds(c):
			// c is already at least oc, and stays so (times only grow): the next join of the
			// two skips the comparison while oc is unchanged.
			p.covers[j] = op.stamp[j]
			continue
		case c.exceeds(oc):
			p, _ = v.own(i<<clockPageBits + j)
			c := p.c[j]
			for k, t := range oc.t[:oc.n] {
				c.t[k] = max(c.t[k], t)
			}
			c.n = max(c.n, oc.n)
			p.stamp[j], p.covers[j] = v.arena.stamp(), op.stamp[j]
			continue
		}
		// oc is at least c: hold oc instead of raising c to it (a copy, if c is shared), so
		// that the next join of the two finds the same chunk and compares nothing. A
		// WaitGroup's clock, joined with each goroutine's at its Done, then holds the chunks
		// the goroutines took from a mutex they all locked, instead of copies that each later
		// Done compares again.
		p = v.ownPage(i)
		p.c[j], p.stamp[j], p.covers[j] = oc, op.stamp[j], op.covers[j]
		p.owned &^= 1 << j
		op.owned &^= 1 << j
	}
}

// exceeds reports whether some time of c is later than o's.
func (c *clockChunk) exceeds(o *clockChunk) bool {
	for j, t := range c.t[:c.n] {
		if t > o.t[j] {
			return true
		}
	}
	return false
}

// release drops v's chunks, leaving it empty (all 0) with its slice kept for reuse.
func (v *vclock) release() {
	clear(v.p)
	v.p = v.p[:0]
	v.owner, v.ownTime = 0, 0
}

// flat returns v as one time per goroutine, up to the last goroutine with a time.
func (v vclock) flat() []uint32 {
	var out []uint32
	for i := range len(v.p) << clockPageBits {
		c := v.chunk(i)
		if c == nil || c.n == 0 {
			continue
		}
		base := i << clockChunkBits
		if len(out) < base {
			out = append(out, make([]uint32, base-len(out))...)
		}
		out = append(out[:base], c.t[:c.n]...)
	}
	if v.owner != 0 {
		g := int(v.owner - 1)
		if len(out) <= g {
			out = append(out, make([]uint32, g+1-len(out))...)
		}
		out[g] = v.ownTime
	}
	return out
}
