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
// races with it). Ties, of probability ~2⁻⁵³, go to the goroutine created first.
//
// Data choices are uniform. Each execution has its own seed, as Random's (SCTBench §5):
// Params reports it, and {"seed": s} runs that execution first.
type POS struct {
	seeds
	prio   []float64 // the priority of each goroutine's pending event
	last   engine.GID
	lastOp engine.Op // the operation the previous step executed
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
	return true
}

// Pick implements engine.Strategy.
func (p *POS) Pick(d *engine.Decision) engine.GID {
	old := len(p.prio)
	// Reassignment: the events racing with the step just executed, the executing
	// goroutine's next event among them, get fresh priorities.
	if p.last >= 0 {
		for g := range old {
			if Dependent(p.last, p.lastOp, engine.GID(g), d.Pending(engine.GID(g))) {
				p.prio[g] = p.rng.Float64()
			}
		}
	}
	// New goroutines' first events.
	for len(p.prio) < d.Goroutines {
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
