package engine

import (
	"sync/atomic"
	"unsafe"
)

// Vector clocks for the race detector (race.go).
//
// A clock has one logical time per goroutine, indexed by GID, stored in chunks of
// clockChunkLen times. Chunks are shared between clocks and copied on write: a join that finds
// a chunk missing from the receiving clock, or one the other's is at least, takes the other's
// chunk itself, not a copy (and the next join of the two compares the pointers only). A test
// that starts thousands of goroutines which take the same mutex then costs a pass over the
// chunks per join, not over the goroutines — the clock the mutex passes from holder to holder
// holds the chunks of all earlier holders, and each new holder shares them instead of copying
// them — and the memory of a clock is what it does not share. A chunk once held by two clocks
// is shared for good: no clock changes it again, one that would copies it first. That costs a
// copy where a count of holders would have found the chunk back with one holder, but neither
// sharing a chunk that is already shared nor dropping a clock writes to its chunks: dropping
// the clocks of an execution's goroutines visits none of their chunks, which the detector's
// arena gives out anew in the next execution (chunkArena). A chunk found to
// be at least another, or raised to include it, remembers that one's stamp (covers), so that
// the next join of the two, while the other is unchanged, skips comparing them.

const (
	clockChunkBits = 6
	clockChunkLen  = 1 << clockChunkBits
	clockChunkMask = clockChunkLen - 1
)

type clockChunk struct {
	t [clockChunkLen]uint32
	n int32 // t[n:] are all 0
	// shared says the chunk has been held by two clocks: it does not change any more.
	shared bool
	// stamp names the chunk's content: a new one, unique in the process, whenever the chunk is
	// made or changed. covers is the stamp of a chunk this one was raised to include: while that
	// chunk has that stamp, this one is at least it, and a join skips comparing them.
	stamp, covers uint64
}

// clockStamps gives out the chunks' stamps.
var clockStamps atomic.Uint64

// vclock is a vector clock: c[i] holds the times of goroutines i*clockChunkLen and on (nil:
// all 0).
type vclock struct {
	c []*clockChunk
	// owner is the goroutine whose clock this is, plus one (0: an object's clock), and
	// ownTime its own time, kept out of the chunks: the increment after each release (race.go)
	// then writes no chunk — the chunk holding it is usually shared with the object released
	// to, and would be copied. The chunks' entry for the owner is ignored: no other clock's
	// view of a goroutine's time is later than its own.
	owner   GID
	ownTime uint32
	// arena is where v makes its chunks (nil: the heap). A goroutine's clock gets the
	// detector's (adopt); an object's clock takes the arena of the first clock joined into it.
	arena *chunkArena
}

// adopt makes v goroutine g's clock, its own time 0, its chunks made in arena.
func (v *vclock) adopt(g GID, arena *chunkArena) { v.owner, v.ownTime, v.arena = g+1, 0, arena }

// chunkArena makes the chunks of an execution's clocks, and makes them again in the next:
// every clock of an execution is dropped when it ends (the goroutines' are released, the
// objects' go with their shadows), so its chunks can be given out anew without the collector
// (reset). A test that starts thousands of goroutines copies a few chunks for each — most of
// what it allocated, and deep in a scheduling point, where the allocator's slow path grew new
// goroutines' stacks.
type chunkArena struct {
	blocks [][]clockChunk
	used   int // chunks given out in this execution
}

// chunkArenaBlock is the number of chunks the arena allocates at once.
const chunkArenaBlock = 256

// make returns a chunk of all 0.
func (a *chunkArena) make() *clockChunk {
	if a == nil {
		return new(clockChunk)
	}
	b, i := a.used/chunkArenaBlock, a.used%chunkArenaBlock
	if b == len(a.blocks) {
		a.blocks = append(a.blocks, make([]clockChunk, chunkArenaBlock))
		engineMade.Add(chunkArenaBlock * uint64(unsafe.Sizeof(clockChunk{})))
	}
	a.used++
	c := &a.blocks[b][i]
	*c = clockChunk{}
	return c
}

// reset gives out every chunk anew: no clock of the last execution is left.
func (a *chunkArena) reset() { a.used = 0 }

func (v vclock) get(g GID) uint32 {
	if g+1 == v.owner {
		return v.ownTime
	}
	if i := int(g) >> clockChunkBits; i < len(v.c) {
		if c := v.c[i]; c != nil {
			return c.t[g&clockChunkMask]
		}
	}
	return 0
}

func (v *vclock) set(g GID, t uint32) {
	if g+1 == v.owner {
		v.ownTime = t
		return
	}
	c := v.own(int(g) >> clockChunkBits)
	j := int32(g & clockChunkMask)
	c.t[j] = t
	c.stamp = clockStamps.Add(1)
	if j >= c.n {
		c.n = j + 1
	}
}

// own returns chunk i of v, made or copied so that v is its only holder.
func (v *vclock) own(i int) *clockChunk {
	if i >= len(v.c) {
		v.grow(i + 1)
	}
	c := v.c[i]
	switch {
	case c == nil:
		c = v.arena.make()
		c.stamp = clockStamps.Add(1)
	case c.shared:
		cp := v.arena.make()
		cp.n, cp.stamp, cp.covers = c.n, c.stamp, c.covers
		copy(cp.t[:c.n], c.t[:c.n])
		c = cp
	default:
		return c
	}
	v.c[i] = c
	return c
}

// grow makes v n chunks long, the new ones nil.
func (v *vclock) grow(n int) {
	if n <= cap(v.c) {
		v.c = v.c[:n]
		return
	}
	old := cap(v.c)
	v.c = append(v.c, make([]*clockChunk, n-len(v.c))...)
	engineMade.Add(uint64(cap(v.c)-old) * uint64(unsafe.Sizeof((*clockChunk)(nil))))
}

// join makes v the element-wise maximum of v and o.
func (v *vclock) join(o vclock) {
	if v.arena == nil {
		v.arena = o.arena
	}
	if len(v.c) < len(o.c) {
		v.grow(len(o.c))
	}
	for i, oc := range o.c {
		c := v.c[i]
		if oc == nil || c == oc {
			continue
		}
		if c == nil {
			oc.share()
			v.c[i] = oc
			continue
		}
		if c.covers == oc.stamp {
			continue // c is already at least oc
		}
		if !oc.exceeds(c) {
			// c is already at least oc, and stays so (times only grow): the next join of the
			// two skips the comparison while oc is unchanged.
			c.covers = oc.stamp
			continue
		}
		if !c.exceeds(oc) {
			// oc is at least c: hold oc instead of raising c to it (a copy, if c is shared),
			// so that the next join of the two finds the same chunk and compares nothing. A
			// WaitGroup's clock, joined with each goroutine's at its Done, then holds the
			// chunks the goroutines took from a mutex they all locked, instead of copies that
			// each later Done compares again.
			oc.share()
			v.c[i] = oc
			continue
		}
		c = v.own(i)
		for j, t := range oc.t[:oc.n] {
			if t > c.t[j] {
				c.t[j] = t
			}
		}
		c.n = max(c.n, oc.n)
		c.stamp, c.covers = clockStamps.Add(1), oc.stamp
	}
	if o.owner != 0 && o.owner != v.owner {
		if g := o.owner - 1; o.ownTime > v.get(g) {
			v.set(g, o.ownTime)
		}
	}
}

// share marks c as held by more than one clock. A chunk already marked is only read: a
// mutex's chunks, shared by every holder that takes them, are not written at each Lock.
func (c *clockChunk) share() {
	if !c.shared {
		c.shared = true
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
	clear(v.c)
	v.c = v.c[:0]
	v.owner, v.ownTime = 0, 0
}

// flat returns v as one time per goroutine, up to the last goroutine with a time.
func (v vclock) flat() []uint32 {
	var out []uint32
	for i, c := range v.c {
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
