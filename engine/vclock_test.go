package engine

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestVClockAgainstDense runs random sequences of set, join and release on chunked clocks that
// share chunks, next to plain slices, and checks that every clock reads as its slice after every
// operation: sharing a chunk never lets a write to one clock show in another. Half the clocks
// are goroutines' (adopt), whose own time is kept out of the chunks; as in the detector, a
// goroutine's time is only ever set in its own clock, and reaches the others by joins.
func TestVClockAgainstDense(t *testing.T) {
	for _, tt := range []struct {
		name       string
		goroutines int
		clocks     int
	}{
		{"one chunk", 10, 4},
		{"chunk boundary", 130, 5},
		{"many chunks", 1000, 8},
		{"many pages", 3000, 6},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tt.goroutines)))
			// The clocks make their chunks in one arena, reset now and then with every clock
			// released (as at the end of an execution): a chunk given out anew must read as 0.
			arena := &chunkArena{}
			clocks := make([]vclock, tt.clocks)
			dense := make([][]uint32, tt.clocks)
			for i := range dense {
				dense[i] = make([]uint32, tt.goroutines)
			}
			// Clock i < tt.clocks/2 is goroutine owner[i]'s.
			owner := map[GID]int{}
			adopt := func(i int) {
				if i < tt.clocks/2 {
					g := GID(i * 37 % tt.goroutines)
					clocks[i].adopt(g, arena)
					owner[g] = i
				}
			}
			for i := range clocks {
				adopt(i)
			}
			for step := range 20000 {
				if step%2000 == 1999 {
					// The end of an execution: every clock released, the arena reset, the
					// goroutines' clocks adopted again.
					for i := range clocks {
						clocks[i].release()
						clocks[i].arena = nil
						clear(dense[i])
					}
					clear(owner)
					arena.reset()
					for i := range clocks {
						adopt(i)
					}
				}
				a := rng.IntN(tt.clocks)
				switch op := rng.IntN(10); {
				case op < 4:
					g := GID(rng.IntN(tt.goroutines))
					if o, ok := owner[g]; ok {
						a = o
					}
					v := dense[a][g] + 1 + uint32(rng.IntN(3))
					clocks[a].set(g, v)
					dense[a][g] = v
				case op < 9:
					b := rng.IntN(tt.clocks)
					clocks[a].join(clocks[b])
					for g := range dense[a] {
						dense[a][g] = max(dense[a][g], dense[b][g])
					}
				default:
					// A released goroutine's clock is not the goroutine's any more (the
					// engine releases a clock when its goroutine is gone, and gives it to a new
					// goroutine only in the next execution).
					clocks[a].release()
					clear(dense[a])
					for g, o := range owner {
						if o == a {
							delete(owner, g)
						}
					}
				}
				for i := range clocks {
					for g := range tt.goroutines {
						if got := clocks[i].get(GID(g)); got != dense[i][g] {
							t.Fatalf("step %d: clock %d at goroutine %d = %d, want %d", step, i, g, got, dense[i][g])
						}
					}
					want := dense[i]
					for len(want) > 0 && want[len(want)-1] == 0 {
						want = want[:len(want)-1]
					}
					got := clocks[i].flat()
					for len(got) > 0 && got[len(got)-1] == 0 {
						got = got[:len(got)-1]
					}
					if !slices.Equal(got, want) {
						t.Fatalf("step %d: clock %d flat = %v, want %v", step, i, got, want)
					}
				}
			}
		})
	}
}

// TestVClockShares: a clock that joins one it has nothing of holds the other's chunks, not
// copies, and a write to either afterwards copies only the chunk written.
func TestVClockShares(t *testing.T) {
	var a, b vclock
	for g := GID(0); g < 3*clockChunkLen; g += 7 {
		a.set(g, uint32(g)+1)
	}
	b.join(a)
	for i := range 3 {
		if a.chunk(i) != b.chunk(i) {
			t.Fatalf("chunk %d copied by join into an empty clock", i)
		}
	}
	b.set(clockChunkLen+1, 1000)
	if a.get(clockChunkLen+1) == 1000 {
		t.Fatal("a write to the clock that shares a chunk changed the other")
	}
	if a.chunk(1) == b.chunk(1) || a.chunk(0) != b.chunk(0) || a.chunk(2) != b.chunk(2) {
		t.Fatal("a write copied other chunks than the one written, or not that one")
	}
}

// TestVClockTakesAChunkAtLeastItsOwn: a join that finds the other clock's chunk at least its
// own holds that chunk instead of raising its own (so that the next join of the two compares
// pointers only); one whose own chunk has a later time somewhere raises it.
func TestVClockTakesAChunkAtLeastItsOwn(t *testing.T) {
	var a, b, c vclock
	a.set(1, 5)
	a.set(2, 3)
	b.set(1, 2)
	c.set(3, 1)
	b.join(a)
	if b.chunk(0) != a.chunk(0) {
		t.Error("the joined clock raised its own chunk instead of holding the other's, which is at least it")
	}
	c.join(a)
	if c.chunk(0) == a.chunk(0) {
		t.Error("the joined clock holds the other's chunk, though its own has a later time")
	}
	if got := []uint32{c.get(1), c.get(2), c.get(3)}; !slices.Equal(got, []uint32{5, 3, 1}) {
		t.Errorf("joined clock = %v, want [5 3 1]", got)
	}
}

// TestVClockTakesAPageAtLeastItsOwn: a join that finds the other clock's page at least its own
// holds that page, so that the next join of the two compares one pointer; one whose page has a
// later time somewhere keeps its own, raised, and a later write to either clock copies the
// page it writes, leaving the other's as it was.
func TestVClockTakesAPageAtLeastItsOwn(t *testing.T) {
	const far = GID(3 * clockPageLen * clockChunkLen) // in the fourth page
	var a, b, c vclock
	a.set(1, 5)
	a.set(far, 7)
	a.set(far+clockChunkLen, 2)
	b.set(far, 3)
	c.set(far+1, 1)
	b.join(a)
	if b.p[3] != a.p[3] || b.p[0] != a.p[0] {
		t.Error("the joined clock raised its pages instead of holding the other's, which are at least them")
	}
	c.join(a)
	if c.p[3] == a.p[3] {
		t.Error("the joined clock holds the other's page, though its own has a later time")
	}
	if c.chunk(int(far>>clockChunkBits)+1) != a.chunk(int(far>>clockChunkBits)+1) {
		t.Error("the joined clock copied a chunk it did not have instead of holding the other's")
	}
	if got := []uint32{c.get(1), c.get(far), c.get(far + 1), c.get(far + clockChunkLen)}; !slices.Equal(got, []uint32{5, 7, 1, 2}) {
		t.Errorf("joined clock = %v, want [5 7 1 2]", got)
	}
	b.set(far+2, 9)
	if a.get(far+2) != 0 || b.p[3] == a.p[3] || b.p[0] != a.p[0] {
		t.Error("a write to a clock that shares a page changed the other's, or copied another page")
	}
}
