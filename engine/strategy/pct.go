package strategy

import (
	"fmt"
	"strconv"

	"github.com/interleave-dev/interleave/engine"
)

// Defaults of PCT.
const (
	DefaultPCTDepth = 3    // d, the bug depth; SCTBench's best configuration (§6)
	DefaultPCTN     = 4    // initial estimate of n, the number of goroutines
	DefaultPCTK     = 64   // initial estimate of k, the number of steps
	DefaultPCTLearn = 1000 // executions per refinement of n and k (§5, footnote 5)
)

// prioScale spaces the integer priorities of the paper so that a goroutine created beyond
// the estimate n can get a distinct priority between two of them (see PCT).
const prioScale = 1 << 32

// PCT is probabilistic concurrency testing with depth d (SCTBench §2.7, after Burckhardt et
// al. 2010). For each execution, with n goroutines and k steps:
//
//  1. the goroutines get distinct initial priorities drawn from {d, d+1, …, d+n}, G0 the
//     first value of a random permutation, G1 the second, and so on in creation order;
//  2. d−1 change points k_1, …, k_{d−1} are drawn uniformly from {1, …, k};
//  3. the enabled goroutine with the highest priority runs; after the k_i-th step, the
//     goroutine that executed it gets priority i (below every initial priority).
//
// A goroutine created beyond n gets a priority drawn uniformly from the real interval
// [d, d+n+1), distinct from the others: a uniformly random rank among the initial
// priorities, still above the change-point priorities.
//
// Steps are counted from the step in which the test body first starts a second goroutine,
// which is step 1 (§5, "we start counting steps from when the initial thread first launches
// a second thread"); earlier steps cannot interleave and are not counted.
//
// After a yield, the yielding goroutine gets the lowest priority of all, below every other
// priority given so far (§3, "Busy-wait loops"), so that a busy-wait loop cannot starve the
// goroutine it waits for.
//
// n and k are learned as footnote 5 of §5 suggests: they start from estimates (parameters or
// defaults), the executions record the largest number of goroutines and of (counted) steps
// observed, and the estimates are replaced by those maxima after executions 1, 10 and 100,
// then after every Learn executions. Data choices are uniform random. Each execution has its
// own seed, as Random's.
type PCT struct {
	seeds
	d, n, k int
	learn   int

	execs int
	seenN int
	seenK int
	perm  []int64 // the initial priorities, a permutation of {d..d+n}
	prio  []int64 // priority of each goroutine of the execution
	// taken is the set of the values in prio, kept from the first goroutine created beyond n
	// in an execution on (takenOK), so that drawing a distinct priority for each of thousands
	// of such goroutines does not look through all the others'.
	taken     map[int64]struct{}
	takenOK   bool
	changes   []int // k_1 .. k_{d-1}
	lowest    int64 // the next yield priority
	goStep    int   // the step that started the second goroutine, 0 before
	fixedPrio []int
	fixedPts  []int
	fixed     bool
	// byPrio holds each goroutine's priority, highest on top, once a decision of the execution
	// has had pctHeapFrom goroutines enabled (heapOn): the highest enabled is then found
	// without a pass over the enabled goroutines. An entry whose goroutine's priority changed
	// since is dropped when it comes up; parked is scratch.
	byPrio   prioHeap[int64]
	parked   []prioEntry[int64]
	heapOn   bool
	heapFrom int // pctHeapFrom (tests change it)
}

// pctHeapFrom is the number of enabled goroutines from which PCT finds the highest priority
// in its heap rather than by a pass over them. The two find the same goroutine (priorities
// are distinct): the threshold only chooses the cheaper way.
const pctHeapFrom = 64

// PCTConfig configures NewPCT. Zero fields take their defaults.
type PCTConfig struct {
	// D is the bug depth d ≥ 1: d−1 priority change points.
	D int
	// N and K are the initial estimates of the number of goroutines and of steps.
	N, K int
	// Learn is the number of executions between refinements of N and K; negative disables
	// learning.
	Learn int
	// Seed is the initial seed of the list of per-execution seeds.
	Seed uint64
}

// NewPCT returns PCT configured by c.
func NewPCT(c PCTConfig) (*PCT, error) {
	p := &PCT{seeds: newSeeds(c.Seed), d: DefaultPCTDepth, n: DefaultPCTN, k: DefaultPCTK,
		learn: DefaultPCTLearn, heapFrom: pctHeapFrom}
	switch {
	case c.D < 0:
		return nil, fmt.Errorf("pct: parameter d must be ≥ 1, got %d", c.D)
	case c.N < 0:
		return nil, fmt.Errorf("pct: parameter n must be ≥ 1, got %d", c.N)
	case c.K < 0:
		return nil, fmt.Errorf("pct: parameter k must be ≥ 1, got %d", c.K)
	}
	if c.D > 0 {
		p.d = c.D
	}
	if c.N > 0 {
		p.n = c.N
	}
	if c.K > 0 {
		p.k = c.K
	}
	if c.Learn != 0 {
		p.learn = c.Learn
	}
	return p, nil
}

// Fix makes every following execution use the given initial priorities (priorities[i] for
// goroutine Gi; goroutines beyond the list get random ones as when they exceed n) and change
// points (d−1 of them), instead of random ones. It is the hook that reproduces SCTBench's
// Example 3; the seed still drives data choices.
func (p *PCT) Fix(priorities, changePoints []int) error {
	if len(changePoints) != p.d-1 {
		return fmt.Errorf("pct: %d change points for d = %d, want %d", len(changePoints), p.d, p.d-1)
	}
	seen := map[int]bool{}
	for i, v := range priorities {
		if v < p.d || seen[v] {
			return fmt.Errorf("pct: priority %d of G%d must be distinct and ≥ d = %d", v, i, p.d)
		}
		seen[v] = true
	}
	for _, k := range changePoints {
		if k < 1 {
			return fmt.Errorf("pct: change point %d must be ≥ 1", k)
		}
	}
	p.fixedPrio = append([]int(nil), priorities...)
	p.fixedPts = append([]int(nil), changePoints...)
	p.fixed = true
	return nil
}

// Name implements engine.Strategy.
func (p *PCT) Name() string { return "pct" }

// Params implements engine.Strategy: d, the estimates n and k in effect, and the seed of the
// current execution.
func (p *PCT) Params() map[string]string {
	return map[string]string{
		"d":     strconv.Itoa(p.d),
		"n":     strconv.Itoa(p.n),
		"k":     strconv.Itoa(p.k),
		"learn": strconv.Itoa(p.learn),
		"seed":  strconv.FormatUint(p.cur, 10),
	}
}

// Estimates returns the estimates of n and k in effect.
func (p *PCT) Estimates() (n, k int) { return p.n, p.k }

// Observed returns the largest number of goroutines and of counted steps seen so far.
func (p *PCT) Observed() (n, k int) { return p.seenN, p.seenK }

// ChangePoints returns the change points k_1..k_{d−1} of the current execution.
func (p *PCT) ChangePoints() []int { return p.changes }

// refineAfter reports whether the estimates are refined after execution e.
func (p *PCT) refineAfter(e int) bool {
	if p.learn < 0 || e == 0 {
		return false
	}
	return (e < p.learn && (e == 1 || e == 10 || e == 100)) || e%p.learn == 0
}

// Begin implements engine.Strategy: it refines n and k when a batch is over, then draws the
// execution's priorities and change points. It always returns true.
func (p *PCT) Begin() bool {
	if p.refineAfter(p.execs) {
		if p.seenN > 0 {
			p.n = p.seenN
		}
		if p.seenK > 0 {
			p.k = p.seenK
		}
	}
	p.execs++
	p.next()
	// Step (1): a random permutation of {d, …, d+n}, the first n values used.
	p.perm = p.perm[:0]
	for v := p.d; v <= p.d+p.n; v++ {
		p.perm = append(p.perm, int64(v)*prioScale)
	}
	p.rng.Shuffle(len(p.perm), func(i, j int) { p.perm[i], p.perm[j] = p.perm[j], p.perm[i] })
	p.perm = p.perm[:p.n]
	if p.fixed {
		p.perm = p.perm[:0]
		for _, v := range p.fixedPrio {
			p.perm = append(p.perm, int64(v)*prioScale)
		}
	}
	// Step (2): d−1 change points, uniform in {1, …, k}.
	p.changes = p.changes[:0]
	for i := 1; i < p.d; i++ {
		p.changes = append(p.changes, 1+p.rng.IntN(p.k))
	}
	if p.fixed {
		p.changes = append(p.changes[:0], p.fixedPts...)
	}
	p.prio = p.prio[:0]
	p.byPrio, p.heapOn = p.byPrio[:0], false
	p.takenOK = false
	p.lowest = 0
	p.goStep = 0
	return true
}

// assign gives each goroutine created since the last decision its initial priority.
func (p *PCT) assign(goroutines int) {
	first := len(p.prio)
	for g := first; g < goroutines; g++ {
		if g < len(p.perm) {
			p.prio = append(p.prio, p.perm[g])
			continue
		}
		// Beyond n: a distinct value in [d, d+n+1), scaled.
		lo, span := int64(p.d)*prioScale, int64(p.n+1)*prioScale
		if !p.takenOK {
			if p.taken == nil {
				p.taken = make(map[int64]struct{})
			}
			clear(p.taken)
			for _, w := range p.prio {
				p.taken[w] = struct{}{}
			}
			p.takenOK = true
		}
		for {
			v := lo + p.rng.Int64N(span)
			if _, used := p.taken[v]; !used {
				p.prio = append(p.prio, v)
				p.taken[v] = struct{}{}
				break
			}
		}
	}
	if p.heapOn {
		for g := first; g < goroutines; g++ {
			p.byPrio.push(prioEntry[int64]{p.prio[g], engine.GID(g)})
		}
	}
}

// setPrio changes goroutine g's priority to v.
func (p *PCT) setPrio(g engine.GID, v int64) {
	if p.takenOK {
		delete(p.taken, p.prio[g])
		p.taken[v] = struct{}{}
	}
	p.prio[g] = v
	if p.heapOn {
		p.byPrio.push(prioEntry[int64]{v, g})
	}
}

// Pick implements engine.Strategy: step (3), after applying the change point of the
// previous step and the lowering after a yield.
func (p *PCT) Pick(d *engine.Decision) engine.GID {
	p.assign(d.Goroutines)
	if p.goStep == 0 && d.Goroutines > 1 {
		p.goStep = max(d.Step-1, 1)
	}
	if last := d.Last; last >= 0 && int(last) < len(p.prio) {
		if p.goStep > 0 {
			j := d.Step - 1 - p.goStep + 1 // counted number of the step just executed
			for i, k := range p.changes {
				if k == j {
					p.setPrio(last, int64(i+1)*prioScale)
				}
			}
		}
		if d.LastOp == engine.OpYield {
			p.setPrio(last, p.lowest)
			p.lowest--
		}
	}
	if d.NumEnabled() >= p.heapFrom {
		return p.highestEnabled(d)
	}
	en := d.Enabled()
	best := en[0]
	for _, g := range en[1:] {
		if p.prio[g] > p.prio[best] {
			best = g
		}
	}
	return best
}

// highestEnabled returns the enabled goroutine with the highest priority, from the heap (made
// at the first call of an execution). Entries of goroutines whose priority changed, or that
// ended (no pending operation), are dropped; those of disabled goroutines are put back.
func (p *PCT) highestEnabled(d *engine.Decision) engine.GID {
	if !p.heapOn {
		p.heapOn = true
		for g, v := range p.prio {
			p.byPrio.push(prioEntry[int64]{v, engine.GID(g)})
		}
	}
	current := func(e prioEntry[int64]) bool {
		return p.prio[e.g] == e.prio && d.Pending(e.g) != (engine.Op{})
	}
	if top, ok := p.byPrio.topEnabled(current, d.IsEnabled, &p.parked); ok {
		return top.g
	}
	return engine.NoGoroutine
}

// Choose implements engine.Strategy: a uniform random alternative.
func (p *PCT) Choose(c *engine.Choice) int { return p.rng.IntN(c.N) }

// End implements engine.Strategy: it records the goroutines and counted steps observed.
func (p *PCT) End(r *engine.Result) {
	p.seenN = max(p.seenN, r.Goroutines)
	if p.goStep > 0 {
		p.seenK = max(p.seenK, r.Steps-p.goStep+1)
	}
}
