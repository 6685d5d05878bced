package strategy

import (
	"strconv"

	"github.com/interleave-dev/interleave/engine"
)

// Dependent reports whether two steps are dependent: the step of goroutine ga executing
// operation a and the step of goroutine gb executing b. It is the dependence relation of
// seed 001 (Sen, "Effective random testing of concurrent programs", slides "Partial order
// technique (1)" and "RAPOS (1)"): executing independent operations in either order gives
// the same state, and RAPOS and POS only reorder dependent ones.
//
//   - Two steps of the same goroutine are dependent (program order: a goroutine's next
//     operation happens after its previous one).
//   - Two operations on the same object (Op.Obj) are dependent unless both only read it
//     (engine.OpKind.IsWrite): reads of the same object commute. Blocking and synchronizing
//     operations (locks, channel operations, wait groups, once, conditions, atomics that
//     store) count as writes of their object, since each can enable or disable the others.
//   - Operations on different objects commute.
//   - An operation on no object (Obj 0: a yield, a go statement, a sleep, a lazy goroutine's
//     start) is independent of every other goroutine's operations. A yield and a sleep
//     change no shared state; the virtual clock advances only when no goroutine is enabled,
//     whatever the order of the sleeps. A go statement is dependent on the first operation
//     of the goroutines it creates (it enables them), but that is a relation between a step
//     and a goroutine, not between two operations: the strategies track it themselves (a
//     goroutine created by a step is dependent on that step).
//   - A select (OpSelect) names no object while pending: the channel of the case taken is
//     only known once it runs. It is therefore taken as dependent on every channel
//     operation (send, receive, close, len, select) of another goroutine — the
//     conservative choice: treating two operations as dependent only costs sampling
//     uniformity, treating dependent ones as independent would hide orders.
func Dependent(ga engine.GID, a engine.Op, gb engine.GID, b engine.Op) bool {
	if ga == gb {
		return true
	}
	if a.Kind == engine.OpSelect && isChanOp(b.Kind) || b.Kind == engine.OpSelect && isChanOp(a.Kind) {
		return true
	}
	if a.Obj == 0 || a.Obj != b.Obj {
		return false
	}
	return a.Kind.IsWrite() || b.Kind.IsWrite()
}

// isChanOp reports whether k is an operation on a channel.
func isChanOp(k engine.OpKind) bool {
	switch k {
	case engine.OpSend, engine.OpRecv, engine.OpClose, engine.OpChanLen, engine.OpSelect:
		return true
	}
	return false
}

// raposStep is a step of the scheduled set that has run: its goroutine and operation.
type raposStep struct {
	g  engine.GID
	op engine.Op
}

// RAPOS is random partial order sampling, the algorithm of seed 001 (Sen, "Effective random
// testing of concurrent programs", slide "RAPOS (1)"):
//
//	s := s0; schedulable := Enabled(s)
//	while Enabled(s) ≠ ∅ {
//		scheduled := RandIndependentSubset(schedulable)
//		for each t ∈ scheduled: s := Execute(s, t)
//		schedulable := {t' ∈ Enabled(s) | ∃ t ∈ scheduled such that t and t' are dependent}
//		if schedulable = ∅: add a random element of Enabled(s) to schedulable
//	}
//
// A transition is an enabled goroutine's pending operation (engine.Decision.Pending) and
// dependence is Dependent; besides, a goroutine created by a step of the scheduled set (a
// go statement) is dependent on that step, since the step enables it. A go statement's
// goroutine is enabled at its start (engine.OpStart), a transition dependent on nothing but
// that step: it stays schedulable until it has run, or a goroutine left out of the set that
// followed its creation would be schedulable again only when no other transition is — never,
// beside a goroutine that spins, until the engine's fairness rule forced it in.
//
// The engine executes one step per decision, so "for each t ∈ scheduled: Execute" is a queue
// across consecutive Pick calls: the first goroutine of the set runs at once, the others at
// the following decisions, in the set's order; a queued goroutine no longer enabled when its
// turn comes is dropped from the set (members are independent, so this only happens when
// the dependence relation missed a conflict). When the queue is empty the next schedulable
// set is computed from the steps that actually ran.
//
// RandIndependentSubset is not spelled out on the slides; slide "RAPOS (3)" gives its
// distribution on two independent transitions: each alone with probability 0.25, both with
// probability 0.5. The procedure used here has exactly that distribution: take the
// schedulable transitions in a uniformly random order; the first is in the set; each later
// one that is independent of every member so far joins with probability 1/2. (Uniform over
// the non-empty independent subsets would give 1/3 each, contradicting the slide.) The random
// order is also the order of execution within the set.
//
// Data choices are uniform. Each execution has its own seed, as Random's (SCTBench §5):
// Params reports it, and {"seed": s} runs that execution first.
type RAPOS struct {
	seeds
	started bool         // a scheduled set has been chosen in this execution
	known   int          // goroutines created before the step just executed
	queue   []engine.GID // the members of the scheduled set still to run, in order
	ran     []raposStep  // the steps of the scheduled set that ran
	created []engine.GID // goroutines created by steps of the scheduled set
	cands   []engine.GID // scratch: the schedulable set
	set     []engine.GID // scratch: the scheduled set
}

// NewRAPOS returns RAPOS whose executions use the seeds generated from seed.
func NewRAPOS(seed uint64) *RAPOS { return &RAPOS{seeds: newSeeds(seed)} }

// Name implements engine.Strategy.
func (r *RAPOS) Name() string { return "rapos" }

// Params implements engine.Strategy: the seed of the current execution.
func (r *RAPOS) Params() map[string]string {
	return map[string]string{"seed": strconv.FormatUint(r.cur, 10)}
}

// Seed returns the seed of the current execution.
func (r *RAPOS) Seed() uint64 { return r.cur }

// Begin implements engine.Strategy. It always returns true.
func (r *RAPOS) Begin() bool {
	r.next()
	r.started = false
	r.known = 0
	r.queue = r.queue[:0]
	r.ran = r.ran[:0]
	r.created = r.created[:0]
	return true
}

// Pick implements engine.Strategy.
func (r *RAPOS) Pick(d *engine.Decision) engine.GID {
	// Goroutines that appeared since the previous decision were created by the step just
	// executed, a member of the scheduled set. (A goroutine started by the virtual clock, an
	// AfterFunc callback, is attributed to it too: it only makes one more goroutine
	// schedulable.)
	for g := r.known; g < d.Goroutines; g++ {
		r.created = append(r.created, engine.GID(g))
	}
	r.known = d.Goroutines
	for len(r.queue) > 0 {
		g := r.queue[0]
		r.queue = r.queue[1:]
		if d.IsEnabled(g) {
			r.ran = append(r.ran, raposStep{g, d.Pending(g)})
			return g
		}
	}
	r.schedulable(d)
	r.set = r.subset(r.set[:0], r.cands, d.Pending)
	r.ran = r.ran[:0]
	r.created = r.unstarted(r.created, d)
	g := r.set[0]
	r.queue = append(r.queue[:0], r.set[1:]...)
	r.ran = append(r.ran, raposStep{g, d.Pending(g)})
	return g
}

// unstarted keeps of created the goroutines that have not started (their pending operation
// is their start) and are not in the scheduled set r.set.
func (r *RAPOS) unstarted(created []engine.GID, d *engine.Decision) []engine.GID {
	kept := created[:0]
next:
	for _, g := range created {
		if d.Pending(g).Kind != engine.OpStart {
			continue
		}
		for _, m := range r.set {
			if m == g {
				continue next
			}
		}
		kept = append(kept, g)
	}
	return kept
}

// schedulable computes r.cands: all enabled goroutines at the first decision; afterwards the
// enabled goroutines dependent on a step of the scheduled set that ran (or created by one),
// or else one random enabled goroutine.
func (r *RAPOS) schedulable(d *engine.Decision) {
	r.cands = r.cands[:0]
	if !r.started {
		r.started = true
		r.cands = append(r.cands, d.Enabled()...)
		return
	}
	for _, g := range d.Enabled() {
		if r.dependsOnSet(g, d.Pending(g)) {
			r.cands = append(r.cands, g)
		}
	}
	if len(r.cands) == 0 {
		r.cands = append(r.cands, d.EnabledAt(r.rng.IntN(d.NumEnabled())))
	}
}

// dependsOnSet reports whether goroutine g with pending operation op is dependent on a step
// of the scheduled set that ran.
func (r *RAPOS) dependsOnSet(g engine.GID, op engine.Op) bool {
	for _, c := range r.created {
		if c == g {
			return true
		}
	}
	for _, s := range r.ran {
		if Dependent(s.g, s.op, g, op) {
			return true
		}
	}
	return false
}

// subset is RandIndependentSubset: it appends to dst a random set of mutually independent
// goroutines of cands (not empty), in execution order, pending giving their operations. It
// reorders cands.
func (r *RAPOS) subset(dst, cands []engine.GID, pending func(engine.GID) engine.Op) []engine.GID {
	r.rng.Shuffle(len(cands), func(i, j int) { cands[i], cands[j] = cands[j], cands[i] })
	dst = append(dst, cands[0])
next:
	for _, g := range cands[1:] {
		op := pending(g)
		for _, m := range dst {
			if Dependent(m, pending(m), g, op) {
				continue next
			}
		}
		if r.rng.IntN(2) == 0 {
			dst = append(dst, g)
		}
	}
	return dst
}

// Choose implements engine.Strategy: a uniform random alternative.
func (r *RAPOS) Choose(c *engine.Choice) int { return r.rng.IntN(c.N) }

// End implements engine.Strategy.
func (r *RAPOS) End(*engine.Result) {}
