package strategy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/internal/splitmix"
)

// A Part is one part of a partitioned exploration: the shards of `interleave test -shard`
// (machines) and, inside a shard, the workers of -p (processes). Every part is explored
// with the same flags and seed; the parts are disjoint and their union is the unpartitioned
// exploration, decided by nothing but the strategy, its seed and the part:
//
//   - A randomized strategy (random, pct, pos, rapos, stride, greybox) runs execution i of the
//     unpartitioned list of per-execution seeds (SCTBench §5, "Notes on randomization") in
//     the part that owns i: with levels (k₁/n₁, k₂/n₂, …), i mod n₁ = k₁, then
//     ⌊i/n₁⌋ mod n₂ = k₂, and so on. The parts of a budget of S schedules thus run exactly
//     the seeds of the unpartitioned run's S executions. (What PCT and stride learn from
//     earlier executions — the estimates of n and k, the goroutines' lengths, greybox's corpus — is learnt
//     from the part's own executions.)
//   - A systematic strategy (dfs, ipb, idb) splits its schedule tree (SCTBench §2.2) by
//     decision prefixes: following a schedule from the root, its prefix of branching
//     decisions is hashed, and once the product of the branching factors passed reaches
//     cellsPerPart × n₁ (the tree then has at least that many cells at that level) the
//     hash decides the level-1 owner; level 2 is decided further down in the same way,
//     with cellsPerPart × n₁ × n₂, and so on. A schedule shorter than that is decided by its
//     whole prefix. Every terminal schedule thus has exactly one owner, whatever the tree,
//     and the parts explore every schedule of the unpartitioned search exactly once: a
//     branch already known to belong to another part is not executed, and an execution
//     that only learns the tree above the cells is a probe (engine.Prober), not counted.
//   - A portfolio partitions each member, except a PERIOD member: its whole search runs in
//     the first part (First), with a turn per part at each round of that part's rotation,
//     and the other parts' rotations go without it.
//
// With racy scheduling points a part makes the accesses of a race it first sees points, as a
// whole run does; its tree then changes, and only parts that end on the same points explored
// shares of one tree (the interleave command combines their claims only then).
//
// PERIOD cannot be partitioned: the slices it explores are discovered by its own
// executions (seed 003, Algorithm 1), so a part that skipped another part's executions
// would not know the slices they reveal. The worker processes of one machine explore it in
// step instead, exchanging those (Lockstep); shards split the test list (the interleave
// command).
type Part struct {
	// Levels, outermost first (the shard, then the worker within it).
	Levels []PartLevel
}

// A PartLevel is part Index of Count, 0 ≤ Index < Count.
type PartLevel struct{ Index, Count int }

// cellsPerPart is the number of subtrees per part at the level where a systematic search's
// owner is decided: enough that parts get even shares of an uneven tree, few enough that
// learning the tree above them costs a handful of executions.
const cellsPerPart = 8

// Whole reports whether p is the whole exploration (no level divides it).
func (p Part) Whole() bool {
	for _, l := range p.Levels {
		if l.Count > 1 {
			return false
		}
	}
	return true
}

// First reports whether p is the first part at every level (the whole exploration is).
func (p Part) First() bool {
	for _, l := range p.Levels {
		if l.Index != 0 {
			return false
		}
	}
	return true
}

// parts is the number of parts at p's deepest level: the product of the levels' counts.
func (p Part) parts() int {
	n := 1
	for _, l := range p.Levels {
		n *= l.Count
	}
	return n
}

// Within returns the part that divides p's part into count parts and takes the index-th.
func (p Part) Within(index, count int) Part {
	return Part{Levels: append(append([]PartLevel(nil), p.Levels...), PartLevel{index, count})}
}

// String formats p as its levels, 1-based as on the command line: "2/4", or "2/4,1/2".
func (p Part) String() string {
	var b strings.Builder
	for i, l := range p.Levels {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d/%d", l.Index+1, l.Count)
	}
	return b.String()
}

// ParsePart parses the form String writes; "" is the whole exploration.
func ParsePart(s string) (Part, error) {
	var p Part
	if strings.TrimSpace(s) == "" {
		return p, nil
	}
	for _, f := range strings.Split(s, ",") {
		l, err := ParsePartLevel(f)
		if err != nil {
			return Part{}, err
		}
		p.Levels = append(p.Levels, l)
	}
	return p, nil
}

// ParsePartLevel parses "i/n" with 1 ≤ i ≤ n.
func ParsePartLevel(s string) (PartLevel, error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || err1 != nil || err2 != nil {
		return PartLevel{}, fmt.Errorf("part %q: want i/n, for example 1/4", s)
	}
	if n < 1 || i < 1 || i > n {
		return PartLevel{}, fmt.Errorf("part %q: want 1 ≤ i ≤ n", s)
	}
	return PartLevel{Index: i - 1, Count: n}, nil
}

func (p Part) check() error {
	for _, l := range p.Levels {
		if l.Count < 1 || l.Index < 0 || l.Index >= l.Count {
			return fmt.Errorf("part %d/%d: want 1 ≤ i ≤ n", l.Index+1, l.Count)
		}
	}
	return nil
}

// Share is the part's share of a budget of total schedules (0: none): the number of the
// whole run's first total executions it owns — exactly those a randomized strategy runs —
// and, for a systematic one, as many.
func (p Part) Share(total int) int {
	if total <= 0 || p.Whole() {
		return total
	}
	n := 0
	for i := 0; i < total; i++ {
		if p.ownsExecution(uint64(i)) {
			n++
		}
	}
	return n
}

// ownsExecution reports whether the part owns execution i of a randomized strategy.
func (p Part) ownsExecution(i uint64) bool {
	for _, l := range p.Levels {
		n := uint64(l.Count)
		if i%n != uint64(l.Index) {
			return false
		}
		i /= n
	}
	return true
}

// Partition makes s explore only part p of its search (see Part). It must be called before
// the first Begin. A strategy that cannot be partitioned gives an error that says why.
func Partition(s engine.Strategy, p Part) error {
	if err := p.check(); err != nil {
		return err
	}
	if p.Whole() {
		return nil
	}
	switch x := s.(type) {
	case *Systematic:
		x.own = newOwnership(p)
		return nil
	case *Portfolio:
		for _, m := range x.members {
			if _, ok := m.s.(*Period); ok {
				// It cannot be split, and its rounds are too short to run in step with the
				// other members' executions between them: one part runs all of it, taking
				// a turn per part at each round of the rotation, so that its share of the
				// whole run does not shrink with the number of parts as a fifth of one
				// part's would (two parts: a sixth of the run instead of a tenth).
				m.elsewhere = !p.First()
				m.turns = p.parts()
				continue
			}
			if err := Partition(m.s, p); err != nil {
				return fmt.Errorf("portfolio member %s: %w", m.label, err)
			}
		}
		return nil
	case interface{ partSeeds() *seeds }:
		x.partSeeds().part = p
		return nil
	case *Period:
		return fmt.Errorf("period cannot be partitioned: it discovers the slices it explores from its own executions (seed 003, Algorithm 1), which another part would not run")
	}
	return fmt.Errorf("%s cannot be partitioned", s.Name())
}

func (s *seeds) partSeeds() *seeds { return s }

// ownership decides the owner of a systematic search's branches (see Part).
type ownership struct {
	part       Part
	thresholds []uint64 // per level, the product of branching factors that decides it
}

func newOwnership(p Part) *ownership {
	o := &ownership{part: p}
	t := uint64(cellsPerPart)
	for _, l := range p.Levels {
		t = satMul(t, uint64(l.Count))
		o.thresholds = append(o.thresholds, t)
	}
	return o
}

// ownState is what is known of the owner of the schedules below a branch.
type ownState struct {
	hash  uint64 // of the branching decisions so far
	prod  uint64 // product of their branching factors, less one (the zero state is the root)
	level uint8  // levels decided
	other bool   // a decided level belongs to another part
}

// child is the state below taking alternative idx of a node with n alternatives.
func (o *ownership) child(st ownState, idx, n int) ownState {
	if o == nil || n <= 1 || st.other {
		return st
	}
	st.hash = splitmix.Mix(st.hash ^ (uint64(idx)<<32 | uint64(n)))
	prod := satMul(st.prod+1, uint64(n))
	st.prod = prod - 1
	for int(st.level) < len(o.thresholds) && prod >= o.thresholds[st.level] {
		st.other = !o.decides(st.hash, int(st.level))
		st.level++
		if st.other {
			break
		}
	}
	return st
}

// mine reports whether a terminal schedule whose decisions led to st is the part's: the
// levels not yet decided are decided by its whole prefix.
func (o *ownership) mine(st ownState) bool {
	if o == nil {
		return true
	}
	if st.other {
		return false
	}
	for l := int(st.level); l < len(o.thresholds); l++ {
		if !o.decides(st.hash, l) {
			return false
		}
	}
	return true
}

func (o *ownership) decides(hash uint64, level int) bool {
	l := o.part.Levels[level]
	return splitmix.Mix(hash+uint64(level+1)*0x9e3779b97f4a7c15)%uint64(l.Count) == uint64(l.Index)
}

func satMul(a, b uint64) uint64 {
	if b != 0 && a > ^uint64(0)/b {
		return ^uint64(0)
	}
	return a * b
}
