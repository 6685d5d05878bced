package engine

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"unsafe"
	"weak"
)

// The race detector's shadow memory: which word of history belongs to an address.
//
// An address names one object only while that object lives: once the collector frees it,
// another object may be allocated at the same address, and its accesses must not be compared
// with the dead object's (that would be a false race). Each execution starts pinning: the
// shadow keeps a pointer to every address it has seen, so that no object it holds history for
// is freed before the execution ends. That costs nothing per access and suits the small tests
// that most executions are. An execution that pins a lot of memory — the live heap (as a
// collection during the execution found it) has grown by more than pinLimit, beside the
// engine's own records, since an earlier collection during it, checked every checkEvery new
// addresses — switches the shadow to weak mode for the rest of the exploration: each word holds a weak
// pointer to its object instead of a pin (package weak), an access to an address whose object
// has died starts a new history, and the words of dead objects are dropped as the table grows.
// A weak pointer is cleared when the collector sweeps its object, before the object's memory
// can be allocated again, so a word whose weak pointer is still set is about the object that is
// there now.
//
// The runtime keeps a span's weak pointers in a list that each new one is inserted into by a
// walk, so weak pointers to thousands of addresses of one object (a buffer written byte by
// byte) would cost time quadratic in their number. A weak pointer is therefore made for the
// address rounded down to 8 bytes (in the same object: objects are 8-byte aligned), and at most
// maxWeakPerPage are held at once per 8 KiB page (one whose object died no longer counts); the
// further addresses of the page are pinned, as in pinning mode, until the execution ends.

const (
	// pinLimit is how much the live heap may grow during an execution, beside the shadow's
	// own memory, before the shadow stops pinning.
	pinLimit = 1 << 20
	// checkEvery is how many new addresses an execution sees between looks at the heap; the
	// first look, at baselineAt, takes the baseline.
	checkEvery = 64
	baselineAt = 64
	// minPrune is the number of words below which weak mode does not look for dead objects.
	minPrune = 1 << 16
	// maxWeakPerPage bounds the weak pointers made for the addresses of one page of memory.
	maxWeakPerPage = 8
)

// shadowStartWeak makes new detectors start in weak mode, and shadowWeakMade counts the weak
// pointers made (for tests).
var (
	shadowStartWeak atomic.Bool
	shadowWeakMade  atomic.Int64
)

// engineMade counts the bytes the engine allocates for its own records of an execution —
// the detector's clock chunks and the goroutines' records — which the heap's growth counts
// but pinning does not cost (checkHeap). Executions that run at once in one process count
// into it together: each then sees the others' records as its own, which can only delay its
// switch to weak mode by what they made.
var engineMade atomic.Uint64

// goroutineBytes is what a goroutine started by the engine adds to the heap: its record, its
// wake channel (96 bytes), and the runtime's own record of a goroutine (about 450 bytes in Go
// 1.26), which a first execution allocates for every goroutine alive at once. None of it is
// memory that pinning keeps.
const goroutineBytes = uint64(unsafe.Sizeof(goroutine{})) + 96 + 450

// raceShadow maps addresses to their words of history (race.go). It is the detector's shadow
// of memory, not to be confused with the shadows of synchronization objects (Exec.shadow).
type raceShadow struct {
	index addrIndex // address -> index in words
	words []word
	// pins keeps the memory of every address seen alive until the execution ends (pinning
	// mode); pins[i] is the address of words[i].
	pins []unsafe.Pointer
	// weak is set once an execution pinned too much: then objects[i] is the object of
	// words[i]. It stays set for the rest of the exploration (the next executions are likely
	// to do the same).
	weak    bool
	objects []shadowObject
	// free lists the words of dead objects, for reuse (weak mode).
	free []int32
	// weakPerPage counts the weak pointers the words hold, by page (weak mode).
	weakPerPage map[uintptr]uint8
	// added counts the new addresses of this execution; heapBase is the heap's size when it
	// was read (checkHeap), and madeBase the engine's records made by then (engineMade).
	added    int
	heapBase uint64
	madeBase uint64
	// baseCycles is the number of collections ended at the last baseline taken (or at the
	// first look, when based is false: the baseline is then still to be taken).
	baseCycles uint64
	based      bool
	// pruneAt is the number of words in use at which weak mode next drops the dead ones.
	pruneAt int
}

// shadowObject is what the shadow knows of the object at a word's address in weak mode.
type shadowObject struct {
	obj weak.Pointer[byte]
	// tracked says obj is a weak pointer to the object; it is not for memory the Go runtime
	// does not manage (mapped by syscall.Mmap or C), which is never freed by the collector.
	tracked bool
	addr    uintptr
}

func (s *raceShadow) reset() {
	s.index.reset()
	for i := range s.words {
		s.words[i].reads = s.words[i].reads[:0]
	}
	s.words = s.words[:0]
	clear(s.pins)
	s.pins = s.pins[:0]
	clear(s.objects)
	s.objects = s.objects[:0]
	s.free = s.free[:0]
	clear(s.weakPerPage)
	s.added = 0
	s.pruneAt = minPrune
}

// word returns the word of history of addr: index[addr] is i when ok. It is a fresh word for
// an address not seen before or whose object has died since. (raceAccess finds the word of a
// known address itself when pinning.)
func (s *raceShadow) word(addr unsafe.Pointer, i int32, ok bool) *word {
	if !ok {
		return s.add(addr)
	}
	w := &s.words[i]
	if !s.weak {
		return w
	}
	if o := &s.objects[i]; o.tracked && o.obj.Value() == nil {
		// The object the history is about is dead: addr is another object's now.
		*w = word{reads: w.reads[:0]}
		s.dropWeak(o)
		*o = s.object(addr)
	}
	return w
}

// add makes a word for addr.
func (s *raceShadow) add(addr unsafe.Pointer) *word {
	s.added++
	if !s.weak && s.added >= baselineAt && s.added%checkEvery == baselineAt%checkEvery {
		s.checkHeap()
	}
	if s.weak && len(s.free) == 0 && len(s.words) >= s.pruneAt {
		s.prune()
	}
	var i int32
	if n := len(s.free); n > 0 {
		i, s.free = s.free[n-1], s.free[:n-1]
	} else {
		i = int32(len(s.words))
		if len(s.words) < cap(s.words) {
			s.words = s.words[:i+1]
		} else {
			s.words = append(s.words, word{})
		}
		if s.weak {
			s.objects = append(s.objects, shadowObject{})
		}
	}
	w := &s.words[i]
	*w = word{reads: w.reads[:0]}
	s.index.put(uintptr(addr), i)
	if s.weak {
		s.objects[i] = s.object(addr)
	} else {
		s.pins = append(s.pins, addr)
	}
	return w
}

// checkHeap takes the live heap's size, and switches to weak mode when it has grown by more
// than pinLimit beside the engine's own growth since the baseline. The live heap is what the
// last collection marked: the garbage made since (a map's old table) does not count. Both
// readings compared are of collections that ended during the execution: the one at the first
// look (baselineAt) may be of a collection before it — none at all in a new process, a live
// heap of 0 — and would count as the program's growth whatever the process did in between
// (an exploration's set-up, the goroutine records of a first execution), so the baseline is
// the first reading of a later collection, and a reading is compared only once another
// collection has ended.
func (s *raceShadow) checkHeap() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 || sample[1].Value.Kind() != metrics.KindUint64 {
		return // not reported by this runtime: keep pinning
	}
	heap, cycles := sample[0].Value.Uint64(), sample[1].Value.Uint64()
	switch {
	case s.added == baselineAt:
		s.baseCycles, s.based = cycles, false
	case cycles == s.baseCycles:
		// No collection ended since the last baseline: the reading is the same.
	case !s.based:
		s.heapBase, s.madeBase, s.baseCycles, s.based = heap, engineMade.Load(), cycles, true
	case heap > s.heapBase+s.ownBytes()+pinLimit:
		s.goWeak()
	}
}

// ownBytes estimates the memory the engine itself holds, which the heap's growth counts but
// pinning does not cost: the shadow's arrays and its index twice over (the ones they outgrew
// are garbage until the next collection), and the records the engine made since the baseline
// (engineMade). A test that starts a thousand goroutines which take one mutex makes about four
// thousand clock chunks, over a megabyte, and a thousand goroutine records: without them, such
// a test went to weak mode for the memory of the engine's own records, and every goroutine then
// paid for the weak pointers' checks.
func (s *raceShadow) ownBytes() uint64 {
	arrays := uint64(cap(s.words))*uint64(unsafe.Sizeof(word{})) + uint64(cap(s.pins))*uint64(unsafe.Sizeof(unsafe.Pointer(nil)))
	return 2*(arrays+s.index.bytes()) + engineMade.Load() - s.madeBase
}

// goWeak switches to weak mode: the words get weak pointers to their objects instead of pins
// (within maxWeakPerPage).
func (s *raceShadow) goWeak() {
	s.weak = true
	pinned := s.pins
	s.pins = make([]unsafe.Pointer, 0, 64)
	s.objects = s.objects[:0]
	for _, p := range pinned {
		s.objects = append(s.objects, s.object(p))
	}
	clear(pinned)
}

// prune drops the words of dead objects and sets when to look again: when the words in use
// have doubled.
func (s *raceShadow) prune() {
	for i := range s.objects {
		if o := &s.objects[i]; o.tracked && o.obj.Value() == nil {
			s.index.delete(o.addr)
			s.dropWeak(o)
			*o = shadowObject{}
			s.words[i] = word{reads: s.words[i].reads[:0]}
			s.free = append(s.free, int32(i))
		}
	}
	s.pruneAt = max(minPrune, 2*(len(s.words)-len(s.free)))
}

// object returns what weak mode keeps of the object at p: a weak pointer to it, or, past the
// page's budget of weak pointers, a pin.
func (s *raceShadow) object(p unsafe.Pointer) shadowObject {
	o := shadowObject{addr: uintptr(p)}
	if s.weakPerPage == nil {
		s.weakPerPage = make(map[uintptr]uint8)
	}
	page := uintptr(p) >> 13
	if s.weakPerPage[page] >= maxWeakPerPage {
		s.pins = append(s.pins, p)
		return o
	}
	if managedByGo(p) {
		o.obj, o.tracked = weak.Make((*byte)(unsafe.Add(p, -int(uintptr(p)&7)))), true
		s.weakPerPage[page]++
		shadowWeakMade.Add(1)
	}
	return o
}

// dropWeak uncounts the weak pointer of o, whose object died.
func (s *raceShadow) dropWeak(o *shadowObject) {
	if page := o.addr >> 13; s.weakPerPage[page] > 0 {
		s.weakPerPage[page]--
	}
}

// managedByGo reports whether p points into memory the Go runtime allocated (the heap or a
// package's variables), which weak.Make accepts; it ends the program on any other pointer.
// runtime.AddCleanup tells them apart with a panic.
func managedByGo(p unsafe.Pointer) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	runtime.AddCleanup((*byte)(p), func(struct{}) {}, struct{}{}).Stop()
	return true
}
