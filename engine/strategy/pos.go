package strategy

import (
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
// A priority is drawn when it is first compared, not when it is (re)assigned: a reassigned
// priority is a fresh uniform draw that nothing has seen yet, so drawing it at the first
// decision at which its goroutine is enabled gives the same distribution of schedules, and a
// step costs the enabled goroutines, not every event racing with it. With 10,000 goroutines
// waiting for one mutex, each Lock and Unlock would otherwise redraw 10,000 priorities of
// which none is compared before the next one. Which priorities are stale is kept by step
// numbers: each object remembers the last step whose execution reassigned all events on it (a
// write) and the last that reassigned its writing events (a read), and the last steps that
// reassigned every channel operation (a select) and every select (a channel operation);
// a priority drawn before the step that concerns its event is stale.
type POS struct {
	seeds
	step   int32     // decisions made in this execution
	prio   []float64 // each goroutine's pending event's priority when drawn (in batches, its log)
	drawn  []int32   // the decision at which prio was drawn; 0: not yet (a new event)
	events []posEvent
	objs   map[uintptr]*posObject
	// The last decisions at which every pending channel operation (after a select) and every
	// pending select (after a channel operation) was reassigned.
	chanReassigned, selectReassigned int32
	last                             engine.GID
	lastOp                           engine.Op // the operation the previous step executed
	// scale is the state in batches (posscale.go), active once scaleFrom goroutines are
	// enabled at a decision.
	scale     posScale
	scaleFrom int
}

// posEvent is what the staleness of a goroutine's priority depends on: its pending event.
type posEvent struct {
	obj                     *posObject // nil for an event on no object
	write, chanOp, isSelect bool
}

// posObject is an object's reassignments: the last decisions at which all the events on it,
// and those of them that write, were reassigned.
type posObject struct {
	all, writers int32
	// In batches (posscale.go): the goroutines whose pending event writes, and reads, the object.
	writes, reads gidSet
}

// NewPOS returns POS whose executions use the seeds generated from seed.
func NewPOS(seed uint64) *POS {
	return &POS{seeds: newSeeds(seed), last: engine.NoGoroutine, objs: map[uintptr]*posObject{},
		scaleFrom: posScaleFrom, scale: posScale{maxBatches: posMaxBatches, heapSlack: posHeapSlack}}
}

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
	p.step = 0
	p.prio, p.drawn, p.events = p.prio[:0], p.drawn[:0], p.events[:0]
	clear(p.objs)
	p.chanReassigned, p.selectReassigned = 0, 0
	p.last = engine.NoGoroutine
	p.lastOp = engine.Op{}
	p.scale.reset()
	return true
}

// Pick implements engine.Strategy.
func (p *POS) Pick(d *engine.Decision) engine.GID {
	p.step++
	if p.scale.active {
		// In batches (posscale.go): the last step's reassignments, then the decision, called
		// from here rather than through a function of their own, which would be one frame
		// more on the goroutine's stack.
		p.applyStep(d)
		return p.decideScaled(d)
	}
	return p.pickOneByOne(d)
}

// pickOneByOne is Pick as the paper has it, a priority drawn for each enabled goroutine whose
// event is new or was reassigned.
func (p *POS) pickOneByOne(d *engine.Decision) engine.GID {
	// Reassignment: the events racing with the step just executed (Dependent), the executing
	// goroutine's next event among them, get fresh priorities — marked stale here, drawn when
	// compared. Between two decisions only the goroutine that ran has a new pending event, and
	// the goroutines it created their first.
	if p.last >= 0 {
		op := p.executed(d)
		if op.Obj != 0 {
			o := p.object(op.Obj)
			if op.Kind.IsWrite() {
				o.all = p.step
			} else {
				o.writers = p.step
			}
		}
		if op.Kind == engine.OpSelect {
			p.chanReassigned = p.step
		}
		if isChanOp(op.Kind) {
			p.selectReassigned = p.step
		}
		p.drawn[p.last] = 0
		p.events[p.last] = p.event(d.Pending(p.last))
	}
	for g := len(p.prio); g < d.Goroutines; g++ {
		p.prio = append(p.prio, 0)
		p.drawn = append(p.drawn, 0)
		p.events = append(p.events, p.event(d.Pending(engine.GID(g))))
	}
	if d.NumEnabled() >= p.scaleFrom {
		p.enterScale(d.Goroutines)
		return p.decideScaled(d)
	}
	best := engine.NoGoroutine
	for _, g := range d.Enabled() {
		if p.stale(g) {
			p.prio[g] = p.rng.Float64()
			p.drawn[g] = p.step
		}
		if best < 0 || p.prio[g] > p.prio[best] {
			best = g
		}
	}
	p.last, p.lastOp = best, d.Pending(best)
	return best
}

// executed is the operation the previous step executed: its goroutine's pending operation
// when POS picked it, or, when that was the goroutine's start, the first operation it executed
// in the same step (Decision.Opened): the event whose racing events get fresh priorities.
func (p *POS) executed(d *engine.Decision) engine.Op {
	if p.lastOp.Kind == engine.OpStart {
		return d.Opened()
	}
	return p.lastOp
}

// stale reports whether goroutine g's priority must be drawn afresh: its event is new, or
// was reassigned since the priority was drawn.
func (p *POS) stale(g engine.GID) bool {
	t := p.drawn[g]
	if t == 0 {
		return true
	}
	e := &p.events[g]
	return e.obj != nil && (t < e.obj.all || e.write && t < e.obj.writers) ||
		e.chanOp && t < p.chanReassigned || e.isSelect && t < p.selectReassigned
}

// event returns what the staleness of a priority for op depends on.
func (p *POS) event(op engine.Op) posEvent {
	e := posEvent{write: op.Kind.IsWrite(), chanOp: isChanOp(op.Kind), isSelect: op.Kind == engine.OpSelect}
	if op.Obj != 0 {
		e.obj = p.object(op.Obj)
	}
	return e
}

// object returns the reassignments of object obj.
func (p *POS) object(obj uintptr) *posObject {
	o := p.objs[obj]
	if o == nil {
		o = &posObject{}
		p.objs[obj] = o
	}
	return o
}

// Choose implements engine.Strategy: a uniform random alternative.
func (p *POS) Choose(c *engine.Choice) int { return p.rng.IntN(c.N) }

// End implements engine.Strategy.
func (p *POS) End(*engine.Result) {}
