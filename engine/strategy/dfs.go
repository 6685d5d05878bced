package strategy

import (
	"fmt"
	"hash/fnv"
	"math"
	"strconv"

	"github.com/interleave-dev/interleave/engine"
)

// costModel says what a schedule bound counts.
type costModel uint8

const (
	costNone       costModel = iota // unbounded depth-first search
	costPreemption                  // preemption bounding, SCTBench §2.3
	costDelay                       // delay bounding, SCTBench §2.4
)

// noBound is the bound of a search that never defers a branch.
const noBound = math.MaxInt32

// Systematic is a systematic concurrency testing strategy (SCTBench §2.2): a depth-first
// search of the schedule tree that keeps its state across executions and explores every
// terminal schedule exactly once. NewDFS makes the unbounded search; NewIPB and NewIDB the
// iterative preemption- and delay-bounded ones (§2.3–§2.5).
//
// The children of a node are visited left to right in creation order, starting with the
// most recently executing goroutine and wrapping around (§3, "DFS"), so the first execution
// is the non-preemptive round-robin schedule for every systematic strategy. After a yield a
// switch is forced, free of charge (§3, "Busy-wait loops"). A nondeterministic data choice
// (which ready case of a select proceeds) is a node too, whose children are its
// alternatives in order.
//
// Iterative bounding explores the schedules with bound 0, then those with bound 1, and so
// on, with no schedule executed twice across bounds: while exploring bound c, a branch that
// would exceed c is not discarded but saved in a work list under the cost it reaches, and
// explored when the search gets to that bound. Each terminal schedule is thus executed
// once, during the pass of the bound equal to its own preemption (or delay) count.
type Systematic struct {
	name  string
	model costModel
	max   int // the largest bound explored, noBound for none
	fair  int // the fairness bound of its executions (engine.FairBounder), 0: the exploration's

	bound   int        // bound being explored
	buckets [][]record // work lists, indexed by the cost of their first branch
	heads   []int      // next record of each work list
	pruned  bool       // a branch was dropped for exceeding max

	started bool
	item    record  // the record being explored
	path    []int32 // item.before, materialized
	stack   []node  // nodes below the item's prefix
	pos     int     // decisions made in this execution

	schedules int
	atBound   int // schedules explored at the current bound
	lastLen   int // decisions made by the last execution that ended
	lastCost  int
	maxCost   int
	diverged  int // executions that ended before replaying their prefix
	err       error

	own    *ownership // the part of the tree explored, nil for all of it (partition.go)
	probe  bool       // the last execution was another part's (engine.Prober)
	probes int

	// budget is the run's bound on executions (engine.Budgeted), 0 for none: a work item
	// with that many items before it in the work lists cannot be reached, and is not kept
	// (capped says one was dropped). Without it, IDB on a test of a thousand goroutines kept
	// every later branch of every execution — 470 MB after 800 executions.
	budget int
	capped bool

	// unresolved lists the work items added in this execution, whose prefix is made when it
	// ends (resolve).
	unresolved []unresolved

	// fallbackSeed seeds the random walks that go on once the search left (Recovered), and
	// fallback runs them, nil until then.
	fallbackSeed uint64
	fallback     *Random
}

// unresolved is a work item, s.buckets[bucket][index], whose prefix is still to be made: that
// of stack node node of the execution that added it.
type unresolved struct{ bucket, index, node int32 }

// resolve makes the prefixes of the work items the execution added. Not as they are added:
// that is in Pick, on the stack of the goroutine at the scheduling point, and a prefix's seg
// is an allocation, deep in the runtime's allocator, which made every goroutine of a thousand
// copy its stack to a larger one (IDB 25% slower). resolve runs in End, on the explorer's,
// and in Begin for an execution that did not end.
func (s *Systematic) resolve() {
	for _, u := range s.unresolved {
		s.buckets[u.bucket][u.index].before = s.before(int(u.node))
	}
	s.unresolved = s.unresolved[:0]
}

// record is a work item: explore the node reached by the prefix before, from its child from
// on, with the given cost before that node.
type record struct {
	before     *seg
	from       int32
	costBefore int32
	own        ownState // the owner of the node's schedules, as far as the prefix decides it
}

// node is a node of the schedule tree on the current path. Its children are not listed:
// a data choice's are its alternatives, a goroutine choice's the enabled goroutines in the
// order order says, and the child taken is found from the decision when the search takes it
// (so that a node of a scheduling point with thousands of enabled goroutines costs no more
// than one with two).
type node struct {
	choice     bool    // a data choice rather than a goroutine choice
	order      rrOrder // the children: for a data choice, only order.n, their number
	idx        int32   // child taken
	taken      int32   // the child taken, encoded as in encodeChoice, when idx was last decided
	takenIdx   int32   // the idx that taken is for (-1: none yet)
	hi         int32   // children idx..hi-1 are within the bound
	costBefore int32
	before     *seg     // prefix leading to this node, built when needed
	own        ownState // the owner of the schedules through this node, before its choice
}

// cost returns the cost of taking child i of n (nondecreasing in i): under delay bounding,
// i delays (the deterministic scheduler takes child 0, §2.4); under preemption bounding, one
// preemption for any child but the first of a preemptive goroutine choice (§2.3); nothing
// otherwise.
func (s *Systematic) cost(n *node, i int32) int32 {
	switch {
	case i == 0:
		return 0
	case s.model == costDelay:
		return i
	case s.model == costPreemption && !n.choice && n.order.preemptive:
		return 1
	}
	return 0
}

// within returns the first child from i (≥ 1) on whose cost, added to n's cost before it,
// exceeds bound, or n.order.n when there is none.
func (s *Systematic) within(n *node, i, bound int32) int32 {
	left := int64(bound) - int64(n.costBefore) // the cost a child may have
	switch {
	case i >= n.order.n:
		return n.order.n
	case int64(s.cost(n, i)) > left:
		return i
	case s.model == costDelay:
		return int32(min(int64(n.order.n), left+1))
	}
	// Costs of 0 or 1 from child 1 on, and child i's within the bound.
	return n.order.n
}

func newSystematic(name string, model costModel, max int) *Systematic {
	if max < 0 {
		max = noBound
	}
	s := &Systematic{name: name, model: model, max: max}
	s.add(record{}, 0, -1)
	return s
}

// Restart implements engine.Restarter: the scheduling points changed, and the search starts
// over on the new tree, from bound 0; the count of schedules explored goes on.
func (s *Systematic) Restart() {
	n, own, budget, seed, fallback, fair := s.schedules, s.own, s.budget, s.fallbackSeed, s.fallback, s.fair
	*s = *newSystematic(s.name, s.model, s.max)
	s.schedules, s.own, s.budget, s.fallbackSeed, s.fallback, s.fair = n, own, budget, seed, fallback, fair
}

// NewDFS returns the unbounded depth-first search of SCTBench §2.2 and §3 ("DFS"). Its Begin
// returns false once every terminal schedule has been executed.
func NewDFS() *Systematic { return newSystematic("dfs", costNone, -1) }

// Name implements engine.Strategy.
func (s *Systematic) Name() string { return s.name }

// Params implements engine.Strategy: the maximum bound, when there is one; once the search
// left for random walks, "fallback" (random) and the random walk's seed.
func (s *Systematic) Params() map[string]string {
	p := map[string]string{}
	if s.fallback != nil {
		p["fallback"] = s.fallback.Name()
		p["seed"] = strconv.FormatUint(s.fallback.Seed(), 10)
	}
	if s.model != costNone && s.max != noBound {
		p["max"] = strconv.Itoa(s.max)
	}
	if s.fair > 0 {
		p[FairParam] = strconv.Itoa(s.fair)
	}
	return p
}

// FairSteps implements engine.FairBounder: the fairness bound of the search's executions
// (parameter fair), 0 for the exploration's.
func (s *Systematic) FairSteps() int { return s.fair }

// Unfair makes the search's executions run with the fairness bound steps instead of the
// exploration's (engine.FairBounder): a goroutine runs up to steps steps in a row while
// others wait. It returns s.
func (s *Systematic) Unfair(steps int) *Systematic {
	s.fair = max(steps, 0)
	return s
}

// Bound returns the bound being explored (SCTBench Table III, "bound"): every schedule with
// a smaller preemption (delay) count has been explored. For DFS it is 0.
func (s *Systematic) Bound() int { return s.bound }

// Cost returns the preemption (delay) count of the last execution, as the strategy counts
// it: the switches forced by yields are free. It equals Bound for every execution.
func (s *Systematic) Cost() int { return s.lastCost }

// Schedules returns the number of schedules explored so far, and how many of them at the
// current bound (Table III, "# new schedules").
func (s *Systematic) Schedules() (total, atBound int) { return s.schedules, s.atBound }

// Complete reports whether the strategy's space is the whole schedule space (no bound), so
// that its exhaustion means every schedule was explored.
func (s *Systematic) Complete() bool { return s.max == noBound }

// Err implements engine.Aborter: why the last execution was stopped.
func (s *Systematic) Err() error { return s.err }

// Recovered implements engine.Recoverer: after an execution that the search stopped because
// the program is nondeterministic, the search leaves and random walks go on (see Systematic).
// In a portfolio, which takes the member out of its rotation instead, it is not called.
func (s *Systematic) Recovered() (notice string, ok bool) {
	if s.err == nil || s.fallback != nil {
		return "", false
	}
	seed := s.fallbackSeed
	if s.own != nil {
		// Each part of a partitioned run walks its own way.
		h := fnv.New64a()
		h.Write([]byte(s.own.part.String()))
		seed ^= h.Sum64()
	}
	s.fallback = NewRandom(seed)
	return fmt.Sprintf("%s left after %d execution(s), random walks went on (no schedule space is claimed covered): %v", s.name, s.schedules, s.err), true
}

// Fallback reports whether the search left for random walks (Recovered).
func (s *Systematic) Fallback() bool { return s.fallback != nil }

// DataSeed implements engine.DataSeeder: the random walk's, once the search left; before,
// 0, the fixed seed (the search explores every execution with the same values).
func (s *Systematic) DataSeed() uint64 {
	if s.fallback != nil {
		return s.fallback.DataSeed()
	}
	return 0
}

// Exhausted implements engine.Exhauster.
func (s *Systematic) Exhausted() string {
	var msg string
	schedules, space := "schedules", engine.WholeScheduleSpace
	if s.own != nil {
		schedules = "schedules of part " + s.own.part.String()
		space = "(the part's whole share of the schedule space)"
	}
	switch {
	case s.capped:
		// Not reached while the bound holds: every item kept takes an execution.
		msg = fmt.Sprintf("%d %s explored; branches beyond the run's %d executions were not kept",
			s.schedules, schedules, s.budget)
	case s.model == costNone:
		msg = fmt.Sprintf("all %d %s explored", s.schedules, schedules)
	case s.pruned:
		msg = fmt.Sprintf("all %d %s with ≤ %d %s explored", s.schedules, schedules, s.max, s.unit())
	default:
		msg = fmt.Sprintf("all %d %s with ≤ %d %s explored %s", s.schedules, schedules, s.maxCost, s.unit(), space)
	}
	if s.diverged > 0 {
		msg += fmt.Sprintf("; %d execution(s) ended before their recorded prefix: the program may be nondeterministic", s.diverged)
	}
	return msg
}

func (s *Systematic) unit() string {
	if s.model == costDelay {
		return "delays"
	}
	return "preemptions"
}

// add puts r in the work list of the given cost, or drops it beyond the maximum bound or
// when its schedules are another part's. With node ≥ 0, r's prefix is that of stack node
// node, made when the execution ends (resolve).
func (s *Systematic) add(r record, cost int32, node int) {
	if r.own.other {
		return
	}
	c := int(cost)
	if c > s.max {
		s.pruned = true
		return
	}
	if s.budget > 0 && s.own == nil && s.waiting(c) >= s.budget {
		s.capped = true
		return
	}
	for len(s.buckets) <= c {
		s.buckets = append(s.buckets, nil)
		s.heads = append(s.heads, 0)
	}
	s.buckets[c] = append(s.buckets[c], r)
	if node >= 0 {
		s.unresolved = append(s.unresolved, unresolved{int32(c), int32(len(s.buckets[c]) - 1), int32(node)})
	}
}

// waiting is the number of work items that come before one added to the work list of cost c:
// those of the lists of cost c and lower not yet taken.
func (s *Systematic) waiting(c int) int {
	n := 0
	for b := 0; b <= c && b < len(s.buckets); b++ {
		n += len(s.buckets[b]) - s.heads[b]
	}
	return n
}

// warmUp implements warmer (Portfolio.SetExecutionsLeft): the schedules of the search's next
// level, about one a decision of its last execution (each level adds a delay or a preemption,
// at any decision), 0 before the first execution.
func (s *Systematic) warmUp() int {
	if s.fallback != nil {
		return 0 // random walks, each drawn independently
	}
	return s.lastLen
}

// SetBudget implements engine.Budgeted. A search that explores one part of the tree (-p,
// -shard) keeps every item: some of its executions are probes, which the bound does not count.
func (s *Systematic) SetBudget(schedules int) { s.budget = schedules }

// next takes the next work item, moving to the next bound when the current one is done.
func (s *Systematic) next() bool {
	for b := s.bound; b < len(s.buckets); b++ {
		if s.heads[b] < len(s.buckets[b]) {
			if b != s.bound {
				s.bound = b
				s.atBound = 0
			}
			s.item = s.buckets[b][s.heads[b]]
			s.buckets[b][s.heads[b]] = record{}
			s.heads[b]++
			s.path = s.item.before.appendTo(s.path)
			return true
		}
		s.buckets[b], s.heads[b] = nil, 0 // drained: free it
	}
	return false
}

// Begin implements engine.Strategy: it backtracks to the deepest node with a child left
// within the bound, or takes the next work item.
func (s *Systematic) Begin() bool {
	s.err = nil
	if s.fallback != nil {
		s.probe = false
		return s.fallback.Begin()
	}
	s.resolve() // the last execution did not end (End resolves)
	s.pos = 0
	if s.started {
		for len(s.stack) > 0 {
			top := &s.stack[len(s.stack)-1]
			top.idx++
			for s.own != nil && top.idx < top.hi && s.own.child(top.own, int(top.idx), int(top.order.n)).other {
				top.idx++ // another part's branch
			}
			if top.idx < top.hi {
				return true
			}
			s.stack = s.stack[:len(s.stack)-1]
		}
	}
	s.started = true
	return s.next()
}

// decide returns the encoded decision at the current position: from the item's prefix, from
// the current path, or the first child of a new node, whose children are o (choice: a data
// choice's) and child i of which is child(i). bad reports a decision of another shape than
// the one recorded on the path there: a nondeterministic program.
func (s *Systematic) decide(choice bool, o rrOrder, child func(i int32) int32) (v int32, bad bool) {
	i := s.pos
	s.pos++
	if i < len(s.path) {
		return s.path[i], false
	}
	j := i - len(s.path)
	if j < len(s.stack) {
		n := &s.stack[j]
		if n.takenIdx != n.idx {
			if n.choice != choice || n.order != o {
				return 0, true
			}
			n.taken, n.takenIdx = child(n.idx), n.idx
		}
		return n.taken, false
	}
	return s.newNode(j, choice, o, child)
}

// newNode is decide at a new node, stack node j, whose children are o, child i of which is
// child(i). Apart from decide, whose path through the recorded prefix then keeps a small
// frame (see nondeterministicPick).
//
//go:noinline
func (s *Systematic) newNode(j int, choice bool, o rrOrder, child func(i int32) int32) (v int32, bad bool) {
	// Reuse the storage of a node popped earlier.
	if cap(s.stack) > j {
		s.stack = s.stack[:j+1]
	} else {
		s.stack = append(s.stack, node{})
	}
	n := &s.stack[j]
	*n = node{choice: choice, order: o, takenIdx: -1}
	if j == 0 {
		n.idx, n.costBefore, n.own = s.item.from, s.item.costBefore, s.item.own
		if n.idx >= o.n {
			s.stack = s.stack[:j]
			return 0, true
		}
	} else {
		p := &s.stack[j-1]
		n.costBefore = p.costBefore + s.cost(p, p.idx)
		n.own = s.own.child(p.own, int(p.idx), int(p.order.n))
	}
	bound := int32(noBound)
	if s.model != costNone {
		bound = int32(s.bound)
	}
	if s.own != nil && !n.own.other {
		// Go down the first branch of this part within the bound; when there is none,
		// the execution is a probe, and the branches are tried in turn as usual.
		for i := n.idx; i < o.n && n.costBefore+s.cost(n, i) <= bound; i++ {
			if !s.own.child(n.own, int(i), int(o.n)).other {
				n.idx = i
				break
			}
		}
	}
	n.hi = s.within(n, n.idx+1, bound)
	if n.hi < o.n {
		s.add(record{from: n.hi, costBefore: n.costBefore, own: n.own}, n.costBefore+s.cost(n, n.hi), j)
	}
	n.taken, n.takenIdx = child(n.idx), n.idx
	return n.taken, false
}

// before returns the prefix leading to stack node j, and keeps it with every node on the way
// from the last one that had its own. It walks forward from there, not back by recursion: an
// execution of thousands of goroutines has tens of thousands of steps, and the recursion ran
// on the stack of the goroutine whose point asked (a new goroutine's is 2 KB), which the
// runtime then copied, doubling, to hold it.
func (s *Systematic) before(j int) *seg {
	k := j
	for k >= 0 && s.stack[k].before == nil {
		k--
	}
	if k < 0 {
		s.stack[0].before = s.item.before
		k = 0
	}
	for ; k < j; k++ {
		s.stack[k+1].before = s.stack[k].before.push(s.stack[k].taken)
	}
	return s.stack[j].before
}

// Pick implements engine.Strategy.
func (s *Systematic) Pick(d *engine.Decision) engine.GID {
	if s.fallback != nil {
		return s.fallback.Pick(d)
	}
	o := roundRobin(d)
	v, bad := s.decide(false, o, func(i int32) int32 { return int32(o.child(d, i)) })
	if bad || isChoice(v) || !d.IsEnabled(engine.GID(v)) {
		s.nondeterministicPick(d, v, bad)
		return engine.NoGoroutine
	}
	return engine.GID(v)
}

// nondeterministicPick records that the explored prefix expects decision v (or another shape,
// bad) where Pick found d. Apart from Pick, which runs on the stack of the goroutine at the
// scheduling point: the error's arguments would make Pick's frame larger than the rest of the
// path, and a goroutine whose stack would not hold it copies its stack to a twice larger one.
//
//go:noinline
func (s *Systematic) nondeterministicPick(d *engine.Decision, v int32, bad bool) {
	s.err = fmt.Errorf("%s: the program is nondeterministic: at step %d the explored prefix %s, but the enabled goroutines are %v", s.name, d.Step, describe(v, bad), d.Enabled())
}

// Choose implements engine.Strategy. Under delay bounding, the deterministic scheduler takes
// alternative 0 and alternative k costs k delays; the other searches branch for free.
func (s *Systematic) Choose(c *engine.Choice) int {
	if s.fallback != nil {
		return s.fallback.Choose(c)
	}
	v, bad := s.decide(true, rrOrder{n: int32(c.N)}, func(k int32) int32 { return encodeChoice(int(k)) })
	if bad || !isChoice(v) || decodeChoice(v) >= c.N {
		s.err = fmt.Errorf("%s: the program is nondeterministic: at step %d the explored prefix %s, but %v %s has %d alternatives", s.name, c.Step, describe(v, bad), c.G, c.Op, c.N)
		return -1
	}
	return decodeChoice(v)
}

func describe(v int32, bad bool) string {
	switch {
	case bad:
		return "expects another decision here"
	case isChoice(v):
		return fmt.Sprintf("takes alternative %d of a data choice", decodeChoice(v))
	}
	return fmt.Sprintf("runs %v", engine.GID(v))
}

// End implements engine.Strategy.
func (s *Systematic) End(r *engine.Result) {
	if s.fallback != nil {
		s.fallback.End(r)
		s.schedules++
		return
	}
	s.resolve()
	s.lastLen = s.pos
	reached := s.pos - len(s.path)
	if reached < len(s.stack) && r.Err == nil {
		// The execution ended inside its recorded prefix: a nondeterministic program.
		s.diverged++
		s.stack = s.stack[:max(reached, 0)]
	}
	cost, own := int(s.item.costBefore), s.item.own
	if n := len(s.stack); n > 0 {
		top := &s.stack[n-1]
		cost = int(top.costBefore + s.cost(top, top.idx))
		own = s.own.child(top.own, int(top.idx), int(top.order.n))
	}
	s.lastCost = cost
	if s.probe = !s.own.mine(own); s.probe {
		s.probes++
		return
	}
	s.schedules++
	s.atBound++
	s.maxCost = max(s.maxCost, cost)
}

// Probe implements engine.Prober: the last execution's schedule is another part's.
func (s *Systematic) Probe() bool { return s.probe }
