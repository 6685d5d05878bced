package strategy

import (
	"math/bits"
	"slices"
	"strconv"

	"github.com/interleave-dev/interleave/engine"
)

// POS is partial order sampling (Xinhao Yuan, Junfeng Yang and Ronghui Gu, "Partial Order
// Aware Concurrency Sampling", CAV 2018, LNCS 10982): the paper's BasicPOS sampler plus its
// priority reassignment, which together are POS. The paper is not among the seed documents
// (the issue names it) and no copy was at hand, so no section or page is cited: the
// algorithm below is the one the paper publishes, as summarized in the issue. The
// dependence ("race") relation is seed 001's, shared with RAPOS (Dependent).
//
// Every event — a goroutine's pending operation — has a priority, a real drawn uniformly from
// [0, 1) when the event appears. At each step the enabled event with the highest priority
// runs (BasicPOS). After it runs, every pending event that races with it (is dependent on
// it: same object, at least one of the two writing) gets a fresh random priority: the
// priority reassignment that turns BasicPOS into POS, so that the order chosen for one race
// does not constrain the next one.
//
// Priorities are kept per goroutine, for its pending event. A goroutine's next operation is a
// new event, so the goroutine that just ran always gets a fresh priority (Dependent holds
// for two steps of the same goroutine); a goroutine created by the step gets one as it
// appears. Blocked goroutines take part in the reassignment too: their pending events are
// events of the program, only not enabled yet (a Lock waiting for the Unlock that just ran
// races with it). A goroutine that has ended has no pending event (Decision.Pending), and
// takes no part. Ties, of probability ~2⁻⁵³, go to the goroutine created first.
//
// Data choices are uniform. Each execution has its own seed, as Random's (SCTBench §5):
// Params reports it, and {"seed": s} runs that execution first.
//
// The events that race with a step are found through an index of the pending events by
// object (posIndex), not by asking Dependent of every goroutine: with thousands of goroutines
// a step costs the events it races with, which get their fresh priorities in goroutine order,
// as a pass over all of them would give them (the same draws of the execution's generator).
type POS struct {
	seeds
	prio   []float64 // the priority of each goroutine's pending event
	last   engine.GID
	lastOp engine.Op // the operation the previous step executed
	index  posIndex
}

// NewPOS returns POS whose executions use the seeds generated from seed.
func NewPOS(seed uint64) *POS { return &POS{seeds: newSeeds(seed), last: engine.NoGoroutine} }

// Name implements engine.Strategy.
func (p *POS) Name() string { return "pos" }

// Params implements engine.Strategy: the seed of the current execution.
func (p *POS) Params() map[string]string {
	return map[string]string{"seed": strconv.FormatUint(p.cur, 10)}
}

// Seed returns the seed of the current execution.
func (p *POS) Seed() uint64 { return p.cur }

// Begin implements engine.Strategy. It always returns true.
func (p *POS) Begin() bool {
	p.next()
	p.prio = p.prio[:0]
	p.last = engine.NoGoroutine
	p.lastOp = engine.Op{}
	p.index.reset()
	return true
}

// Pick implements engine.Strategy.
func (p *POS) Pick(d *engine.Decision) engine.GID {
	// Reassignment: the events racing with the step just executed, the executing
	// goroutine's next event among them, get fresh priorities. Between two decisions only
	// the goroutine that ran has a new pending event (and the goroutines it created, which
	// are not yet indexed).
	if p.last >= 0 {
		p.index.update(p.last, d.Pending(p.last))
		for _, g := range p.index.racing(p.last, p.lastOp, d) {
			p.prio[g] = p.rng.Float64()
		}
	}
	// New goroutines' first events.
	for len(p.prio) < d.Goroutines {
		g := engine.GID(len(p.prio))
		p.index.update(g, d.Pending(g))
		p.prio = append(p.prio, p.rng.Float64())
	}
	best := d.EnabledAt(0)
	for _, g := range d.Enabled()[1:] {
		if p.prio[g] > p.prio[best] {
			best = g
		}
	}
	p.last, p.lastOp = best, d.Pending(best)
	return best
}

// Choose implements engine.Strategy: a uniform random alternative.
func (p *POS) Choose(c *engine.Choice) int { return p.rng.IntN(c.N) }

// End implements engine.Strategy.
func (p *POS) End(*engine.Result) {}

// posIndex indexes the goroutines' pending events by what Dependent compares: the object an
// event is on, and whether it is a select or another channel operation (a select races with
// every channel operation). A goroutine is in at most one object's list and in each kind's
// list at most once; each list is unordered, and a goroutine knows its place in it, so that
// moving it is constant time.
type posIndex struct {
	pending []engine.Op // each indexed goroutine's pending event, as indexed
	slots   []posSlots
	byObj   map[uintptr]*posList
	selects posList // goroutines whose pending event is a select
	chans   posList // goroutines whose pending event is a channel operation, selects included
	free    []*posList

	// racing's result: the goroutines found, and a bit per goroutine so that each is given
	// once, walked in id order.
	marks   []uint64
	touched []int
	found   []engine.GID
}

// posSlots is where a goroutine is in the index's lists (-1: not in it): its object's, the
// selects' and the channel operations'.
type posSlots [3]int32

const (
	slotObj = iota
	slotSel
	slotChan
)

// posList is an unordered list of goroutines.
type posList struct{ ids []engine.GID }

func (l *posList) add(g engine.GID) int32 {
	l.ids = append(l.ids, g)
	return int32(len(l.ids) - 1)
}

// remove takes out the goroutine at i, moving the last one into its place; it returns the
// goroutine moved, or NoGoroutine.
func (l *posList) remove(i int32) engine.GID {
	last := len(l.ids) - 1
	moved := l.ids[last]
	l.ids[i] = moved
	l.ids = l.ids[:last]
	if int(i) == last {
		return engine.NoGoroutine
	}
	return moved
}

func (x *posIndex) reset() {
	x.pending = x.pending[:0]
	x.slots = x.slots[:0]
	for obj, l := range x.byObj {
		l.ids = l.ids[:0]
		x.free = append(x.free, l)
		delete(x.byObj, obj)
	}
	x.selects.ids = x.selects.ids[:0]
	x.chans.ids = x.chans.ids[:0]
}

// update records that goroutine g's pending event is op.
func (x *posIndex) update(g engine.GID, op engine.Op) {
	for int(g) >= len(x.slots) {
		x.slots = append(x.slots, posSlots{-1, -1, -1})
		x.pending = append(x.pending, engine.Op{})
	}
	prev := x.pending[g]
	if prev.Obj != 0 && prev.Obj != op.Obj {
		l := x.byObj[prev.Obj]
		x.place(l, g, slotObj, false)
		if len(l.ids) == 0 {
			delete(x.byObj, prev.Obj)
			x.free = append(x.free, l)
		}
	}
	if op.Obj != 0 && op.Obj != prev.Obj {
		l := x.byObj[op.Obj]
		if l == nil {
			if n := len(x.free); n > 0 {
				l, x.free = x.free[n-1], x.free[:n-1]
			} else {
				l = new(posList)
			}
			if x.byObj == nil {
				x.byObj = make(map[uintptr]*posList)
			}
			x.byObj[op.Obj] = l
		}
		x.place(l, g, slotObj, true)
	}
	x.place(&x.selects, g, slotSel, op.Kind == engine.OpSelect)
	x.place(&x.chans, g, slotChan, isChanOp(op.Kind))
	x.pending[g] = op
}

// place puts goroutine g in list l (in) or takes it out, which slot of its posSlots says
// where it is there.
func (x *posIndex) place(l *posList, g engine.GID, slot int, in bool) {
	at := x.slots[g][slot]
	switch {
	case at >= 0 && !in:
		if moved := l.remove(at); moved >= 0 {
			x.slots[moved][slot] = at
		}
		x.slots[g][slot] = -1
	case at < 0 && in:
		x.slots[g][slot] = l.add(g)
	}
}

// racing returns, in id order, the indexed goroutines whose pending event is dependent on
// goroutine last's event op (Dependent): last itself, the events on op's object of which one
// of the two writes, and the selects with channel operations.
func (x *posIndex) racing(last engine.GID, op engine.Op, d *engine.Decision) []engine.GID {
	x.touched = x.touched[:0]
	x.mark(last)
	if op.Obj != 0 {
		if l := x.byObj[op.Obj]; l != nil {
			for _, g := range l.ids {
				if op.Kind.IsWrite() || x.pending[g].Kind.IsWrite() {
					x.mark(g)
				}
			}
		}
	}
	if op.Kind == engine.OpSelect {
		for _, g := range x.chans.ids {
			x.mark(g)
		}
	} else if isChanOp(op.Kind) {
		for _, g := range x.selects.ids {
			x.mark(g)
		}
	}
	slices.Sort(x.touched)
	x.found = x.found[:0]
	for _, k := range x.touched {
		w := x.marks[k]
		x.marks[k] = 0
		for w != 0 {
			x.found = append(x.found, engine.GID(k<<6+bits.TrailingZeros64(w)))
			w &= w - 1
		}
	}
	return x.found
}

func (x *posIndex) mark(g engine.GID) {
	k := int(g >> 6)
	for k >= len(x.marks) {
		x.marks = append(x.marks, 0)
	}
	if x.marks[k] == 0 {
		x.touched = append(x.touched, k)
	}
	x.marks[k] |= 1 << (g & 63)
}
