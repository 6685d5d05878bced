package engine

import (
	"math/bits"
	"unsafe"

	"github.com/interleave-dev/interleave/engine/internal/splitmix"
)

// traceStep is one recorded decision, in the engine's compact form: 16 bytes without
// pointers, so that recording a step costs a plain store (it is most of what a scheduling
// point that does not switch costs). A data choice's value and number of alternatives are
// kept apart, in Exec.choices.
type traceStep struct {
	obj  uintptr // the object acted on; for a data choice, its index in Exec.choices
	g    GID
	code uint32 // posID | op << 23 | 1 << 30 for a goroutine's start | 1 << 31 for a data choice
}

type choiceRecord struct{ value, n int32 }

const (
	tracePosBits = 23
	traceChoice  = 1 << 31
	traceOpened  = 1 << 30 // the step started its goroutine, whose first operation it records
	tracePosMask = 1<<tracePosBits - 1
	traceOpMask  = 0x7f
	maxPositions = tracePosMask
)

func (s traceStep) isChoice() bool { return s.code&traceChoice != 0 }
func (s traceStep) op() OpKind     { return OpKind(s.code >> tracePosBits & traceOpMask) }
func (s traceStep) pos() posID     { return posID(s.code & tracePosMask) }
func (s traceStep) opened() bool   { return s.code&traceOpened != 0 }

func traceCode(op OpKind, pos posID) uint32 { return uint32(pos) | uint32(op)<<tracePosBits }

// posID is an interned source position.
type posID uint32

// positions interns the source positions of recorded steps, so that the trace holds no
// pointers. Positions are constant strings, so a direct-mapped cache keyed by the address of
// their bytes finds almost every one with a load and a compare; the table keeps every interned
// string alive, so an address in the cache can never be reused for other text.
type positions struct {
	table []Pos
	ids   map[Pos]posID
	cache [positionCacheMask + 1]struct {
		data *byte
		n    int
		id   posID
	}
}

// positionCacheMask masks the cache's index (the address of a position's bytes over 8).
const positionCacheMask = 1023

// id returns pos's id: the cache, else intern. Exec.decide has it written out.
func (p *positions) id(pos Pos) posID {
	data := unsafe.StringData(pos)
	slot := &p.cache[(uintptr(unsafe.Pointer(data))>>3)&positionCacheMask]
	if slot.data == data && slot.n == len(pos) && data != nil {
		return slot.id
	}
	return p.intern(pos)
}

func (p *positions) intern(pos Pos) posID {
	data := unsafe.StringData(pos)
	slot := &p.cache[(uintptr(unsafe.Pointer(data))>>3)&positionCacheMask]
	if p.ids == nil {
		p.ids = make(map[Pos]posID)
		p.table = append(p.table, "") // id 0 is the empty position
	}
	id, ok := p.ids[pos]
	if !ok && pos != "" && len(p.table) <= maxPositions {
		id = posID(len(p.table))
		p.table = append(p.table, pos)
		p.ids[pos] = id
	}
	slot.data, slot.n, slot.id = data, len(pos), id
	return id
}

func (p *positions) at(id posID) Pos {
	if int(id) < len(p.table) {
		return p.table[id]
	}
	return ""
}

// fingerprinter hashes an execution's happens-before order (a Mazurkiewicz trace): for each
// object, the sequence of operations on it, each named by its goroutine and that goroutine's
// step count — consecutive reads commute —, and the objects combined in an order-independent
// way. Two executions that differ only in the order of independent operations get the same
// sum: the "distinct partial orders sampled" metric of seed 001. Its tables are reused across
// executions.
type fingerprinter struct {
	local []uint64
	slots []fpSlot
	epoch uint32
	used  int
}

type fpSlot struct {
	obj      uintptr
	epoch    uint32
	h, reads uint64
}

func (f *fingerprinter) sum(trace []traceStep, goroutines int) uint64 {
	if cap(f.local) < goroutines {
		f.local = make([]uint64, goroutines)
	}
	f.local = f.local[:goroutines]
	clear(f.local)
	f.epoch++
	f.used = 0
	if len(f.slots) == 0 {
		f.slots = make([]fpSlot, 64)
	}
	// The current goroutine's step count and the current object's hash and reads are kept in
	// locals while they stay current (runs of steps of one goroutine on one object are the
	// common case), so that the loop carries no dependency through memory.
	var (
		total   uint64
		lastObj uintptr
		o       *fpSlot
		h       uint64 // o.h while o is current
		reads   uint64 // o.reads while o is current
		curG    = GID(-1)
		n       uint64 // f.local[curG] while curG is current
	)
	for i := 0; i < len(trace); i++ {
		s := trace[i]
		if s.isChoice() {
			continue
		}
		if s.g != curG {
			if curG >= 0 {
				f.local[curG] = n
			}
			curG = s.g
			n = f.local[curG]
		}
		n++
		if s.obj == 0 {
			continue
		}
		if s.obj != lastObj || o == nil {
			if o != nil {
				o.h, o.reads = h, reads // before slot, which may move the table
			}
			o = f.slot(s.obj)
			h, reads = o.h, o.reads
			lastObj = s.obj
		}
		op := s.op()
		// One multiply per operation; objects are finalized with a full mix below.
		v := (uint64(s.g)<<40 ^ n<<8 ^ uint64(op)) * 0x9e3779b97f4a7c15
		if !op.IsWrite() {
			reads += v
			// The steps after it that repeat it (the same goroutine, object and operation;
			// any position), a loop's reads, are summed at once: while the step count's bits
			// do not reach the goroutine's, each v above is K·(g<<40 + op) + K·(n<<8), so a
			// run of m of them adds K·(m·(g<<40 + op) + (m·n + m(m+1)/2)<<8).
			same := s.code &^ tracePosMask
			j := i + 1
			for j < len(trace) && trace[j].obj == s.obj && trace[j].g == s.g && trace[j].code&^tracePosMask == same {
				j++
			}
			if m := uint64(j - i - 1); m > 0 && n+m < 1<<32 {
				reads += (m*(uint64(s.g)<<40|uint64(op)) + (m*n+m*(m+1)/2)<<8) * 0x9e3779b97f4a7c15
				n += m
				i = j - 1
			}
			continue
		}
		h = (h^reads)*0x100000001b3 ^ v
		reads = 0
	}
	if o != nil {
		o.h, o.reads = h, reads
	}
	for i := range f.slots {
		if o := &f.slots[i]; o.epoch == f.epoch {
			total += splitmix.Mix(o.h ^ bits.RotateLeft64(o.reads, 17))
		}
	}
	return total
}

// slot finds or adds the entry of obj in an open-addressing table.
func (f *fingerprinter) slot(obj uintptr) *fpSlot {
	if 2*(f.used+1) > len(f.slots) {
		f.grow()
	}
	mask := uintptr(len(f.slots) - 1)
	for i := (obj * 0x9e3779b97f4a7c15 >> 20) & mask; ; i = (i + 1) & mask {
		o := &f.slots[i]
		if o.epoch != f.epoch {
			*o = fpSlot{obj: obj, epoch: f.epoch, h: 0x9e3779b97f4a7c15}
			f.used++
			return o
		}
		if o.obj == obj {
			return o
		}
	}
}

func (f *fingerprinter) grow() {
	old := f.slots
	f.slots = make([]fpSlot, 2*len(old))
	f.used = 0
	for _, o := range old {
		if o.epoch == f.epoch {
			n := f.slot(o.obj)
			n.h, n.reads = o.h, o.reads
		}
	}
}
