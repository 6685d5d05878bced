package engine

import "math/bits"

// addrIndex maps addresses to indices: those the race detector has seen to their words of
// history (raceshadow.go), and the atomic variables to their places in the state an
// AtomicsObserver reads (atomicstate.go). It is a hash table with open addressing and linear
// probing, at most half full, in place of a Go map on paths that run at the program's
// operations: a lookup is a multiplication, a shift and, nearly always, one comparison, and an
// insertion calls nothing — it runs on the stack of the program's goroutine, where the
// runtime's map assignment was deep enough to make a new goroutine copy its stack. Address 0
// marks an empty slot (neither user has nil addresses).
type addrIndex struct {
	keys  []uintptr
	vals  []int32
	n     int // entries
	shift uint8
}

// minIndexBits is the size of a new table, as a power of two.
const minIndexBits = 6

// slot is where the probe for key a starts (Fibonacci hashing: addresses are multiples of
// their alignment, and the multiplication spreads them over the high bits).
func (x *addrIndex) slot(a uintptr) int {
	return int((uint64(a) * 0x9e3779b97f4a7c15) >> x.shift)
}

// get returns the value of a, and whether a is in the table.
func (x *addrIndex) get(a uintptr) (int32, bool) {
	if x.n == 0 {
		return 0, false
	}
	mask := len(x.keys) - 1
	for i := x.slot(a); ; i = (i + 1) & mask {
		switch x.keys[i] {
		case a:
			return x.vals[i], true
		case 0:
			return 0, false
		}
	}
}

// put sets the value of a (not 0).
func (x *addrIndex) put(a uintptr, v int32) {
	if 2*(x.n+1) > len(x.keys) {
		x.grow()
	}
	mask := len(x.keys) - 1
	i := x.slot(a)
	for x.keys[i] != 0 && x.keys[i] != a {
		i = (i + 1) & mask
	}
	if x.keys[i] == 0 {
		x.keys[i] = a
		x.n++
	}
	x.vals[i] = v
}

// grow doubles the table (or makes the first one) and puts the entries back.
func (x *addrIndex) grow() {
	size := 1 << minIndexBits
	if len(x.keys) > 0 {
		size = 2 * len(x.keys)
	}
	keys, vals := x.keys, x.vals
	x.keys, x.vals = make([]uintptr, size), make([]int32, size)
	x.shift = uint8(64 - bits.TrailingZeros(uint(size)))
	x.n = 0
	for i, a := range keys {
		if a != 0 {
			x.put(a, vals[i])
		}
	}
}

// delete removes a, moving back the entries of its probe run that would no longer be found
// past the gap (backward-shift deletion: no tombstones, so lookups stay short).
func (x *addrIndex) delete(a uintptr) {
	if x.n == 0 {
		return
	}
	mask := len(x.keys) - 1
	i := x.slot(a)
	for x.keys[i] != a {
		if x.keys[i] == 0 {
			return
		}
		i = (i + 1) & mask
	}
	x.n--
	for j := (i + 1) & mask; x.keys[j] != 0; j = (j + 1) & mask {
		// The entry at j may fill the gap at i unless its probe starts in (i, j].
		if home := x.slot(x.keys[j]); (j-home)&mask >= (j-i)&mask {
			x.keys[i], x.vals[i] = x.keys[j], x.vals[j]
			i = j
		}
	}
	x.keys[i], x.vals[i] = 0, 0
}

// reset empties the table, keeping its size.
func (x *addrIndex) reset() {
	if x.n > 0 {
		clear(x.keys)
		x.n = 0
	}
}

// bytes is the memory the table holds.
func (x *addrIndex) bytes() uint64 {
	return uint64(cap(x.keys))*8 + uint64(cap(x.vals))*4
}
