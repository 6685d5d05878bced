package strategy

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/interleave-dev/interleave/engine"
)

// portfolioStream is the PCG stream of the generator that derives the members' seeds from
// the portfolio's seed.
const portfolioStream = 0x5ec7_be9c_0000_0003

// DefaultPortfolioMembers are the members of the default portfolio, in rotation order: PCT
// with depth 3 (SCTBench's best PCT configuration, seed 004 §6), POS, randomized stride in
// its length-based variant p2 (seed 000 §V-A: p = √(1 − 0.01^(1/9900)) ≈ 0.0216, any two
// independent least likely ordering edges covered in one of 9,900 executions with
// confidence 0.99; the lengths are learned in the member's first DefaultStrideLearn
// executions), iterative delay bounding without a maximum bound, and PERIOD (seed 003: its
// schedules run the goroutines in periods, which reaches the bugs that need one goroutine to
// run between two steps of each of many others, such as SCTBench's reorder_10 and
// reorder_20, in a few hundred executions whatever the seed, where PCT's rate there is about
// one in a thousand), and greybox (coverage-guided schedule fuzzing, aimed at the bugs that
// need many preemptions each at its place, which the others' executions reach by chance
// alone: misc/safestack's ABA, which no technique of SCTBench's study found).
//
// The last member is unfair (UnfairSteps): the one schedule of delay bounding with no delay,
// run with a fairness bound of UnfairSteps instead of engine.DefaultFairSteps, in which each
// goroutine runs until it blocks while the new ones wait, as Go's scheduler may let it for a
// time slice. It reaches the lost wake-ups that need a loop of thousands of signals to end
// before a new goroutine reaches Wait, which the fair members never run (they make the
// signaller yield after a thousand steps). It costs one execution, after which it leaves the
// rotation (its guarantee is "all 1 schedules with ≤ 0 delays").
var DefaultPortfolioMembers = "pct:d=3+pos+stride:p=" +
	strconv.FormatFloat(StrideTargetProbability(0.99, 9900, 2), 'g', -1, 64) + "+idb+period+greybox" +
	"+idb:max=0:" + FairParam + "=" + strconv.Itoa(UnfairSteps)

// FairParam is the parameter of the systematic strategies that gives their executions a
// fairness bound of their own, in steps (engine.FairBounder): "idb:max=0:fair=20000". In a
// portfolio such a member is labelled "unfair-" and its name ("unfair-idb"), and its
// parameters name the bound ("unfair-idb.fair").
const FairParam = "fair"

// UnfairSteps is the fairness bound of the default portfolio's unfair member: 20,000 steps in
// a row before a goroutine is made to yield to the others, where the fair members allow
// engine.DefaultFairSteps. Go's scheduler preempts a goroutine that has run 10ms; 20,000
// visible operations (signals, locks, atomic operations) take a few hundred microseconds
// natively, well inside that slice, so a schedule that runs them while a new goroutine waits
// is one Go may run, bounded as Go bounds it: a spin loop waiting for the new goroutine still
// ends, after 20,000 steps.
const UnfairSteps = 20_000

// unfairPrefix begins the label of a member with a fairness bound of its own.
const unfairPrefix = "unfair-"

// memberName is the name a member is labelled by: its strategy's, after unfairPrefix when it
// runs with a fairness bound of its own.
func memberName(s engine.Strategy) string {
	if fb, ok := s.(engine.FairBounder); ok && fb.FairSteps() > 0 {
		return unfairPrefix + s.Name()
	}
	return s.Name()
}

// FairSteps implements engine.FairBounder: the current member's own fairness bound, 0 when it
// has none.
func (p *Portfolio) FairSteps() int {
	if p.cur < 0 {
		return 0
	}
	if fb, ok := p.members[p.cur].s.(engine.FairBounder); ok {
		return fb.FairSteps()
	}
	return 0
}

// Portfolio interleaves several member strategies across executions, so that no single
// technique's blind spot decides the result. The techniques are complementary rather than
// ranked: randomized scheduling and PCT favour some orders of event pairs and, because the
// two orders of a pair exclude each other, any scheduler that promotes the secondary orders
// (randomized stride) demotes the primary ones (seed 000, §IV: "any change that increases
// the probability of discovering potential bugs for which secondary orders are necessary
// conditions will inevitably result in decreasing the probability of some potential bugs for
// which primary orders are necessary conditions"); and SCTBench's Tables III and IV (seed
// 004) show iterative delay bounding and PCT with d = 3 each finding bugs the other misses.
//
// The rotation is round-robin, one execution each: execution 1 is the first member's, 2 the
// second's, and so on, wrapping around. Each member thus gets an equal share of any budget
// of executions (of time, in proportion to its executions' lengths), and a bug that one
// member finds after m of its own executions is found by a portfolio of n members within
// n·m executions, whatever the budget. (Phases —
// all of one member's budget, then the next — would leave the later members nothing when a
// run is cut short, and weights would have to guess which technique suits the program.)
// Under a time budget that holds few executions (long ones: SetExecutionsLeft), the members
// whose warm-up is longer than their share sit out, and the others share the budget.
//
// The other exception is a member that learns (a Learner: greybox, from its corpus). A
// randomized member's executions are independent, so its chance of finding a bug is the same
// in each; a learner's grows as it builds on what it kept, for as long as its executions keep
// covering something new. So while it is learning (Greybox.Learning) its turns are longer:
// one more execution for each learnerRamp it has run, up to learnerTurns; once its coverage
// stops growing, one execution again. The bugs the other members find early are found about
// as early as without it (for its first learnerRamp executions it is one member among
// equals); on programs whose behaviour it has covered (SCTBench's twostage_100 and
// reorder_10: six corpus entries after the first thousand executions, none after) it keeps
// an equal share; on a lock-free structure whose states it keeps discovering (safestack: a
// new one every ten to thirty executions until the bug) it ends up running most executions.
// The bound above holds with n − 1 + learnerTurns in place of n for the other members.
//
// A learner may also learn from the executions the others run (an Observer: greybox). The
// portfolio tells it of their decisions, data choices and ends, and greybox keeps those that
// covered something new in its corpus as it keeps its own, to mutate in its turns — the
// corpus synchronisation of ensemble fuzzing (EnFuzz: Chen et al., USENIX Security 2019):
// PCT's, POS's and PERIOD's executions reach orders that a random walk and its mutants reach
// rarely, and greybox builds on them. On misc/safestack, seeds 1–40 of the default portfolio
// with 10,000 executions: found by 31 instead of 30, the median first failure (a miss counted
// as 99,999) 7,108 → 4,799, and seed 1, SCTBench-Go's, at 2,808 where it missed; every other
// SCTBench-Go benchmark's bug is found, at the same execution for all but five (pbzip2 18 →
// 21, carter01 7 → 6, reorder_10 965 → 186, qsort_mt 6 → 36, twostage_100 6,137 → 6,027), for
// 5% more time over the whole suite (the others' executions carry greybox's bookkeeping and
// the atomic variables' state). Executions longer than greyboxObserveMax decisions are not
// observed.
//
// Each member is an oracle that lives across executions, and keeps its own state: Begin,
// Pick, Choose and End of an execution go to that execution's member only (an Observer is
// told of them, but the executions it runs are its own), so a member's k-th execution in the
// portfolio is, but for an Observer's, exactly its k-th execution alone — a systematic
// member's search progresses through its bounds, PCT refines its estimates, stride learns
// lengths from its own executions. A member whose Begin returns false (a systematic search
// that is exhausted) leaves the rotation, and its guarantee is kept; the portfolio is
// exhausted only when every member is, and Exhausted then reports every member's guarantee.
// Err is the current member's, when it is an engine.Aborter.
//
// Params identify the member of the current execution, so that a schedule file says what
// produced it: "member" is the member's label (its name; name#i, from 1, when the name
// appears more than once), "member.execution" which execution of that member it was (from
// 1), each of the member's parameters is prefixed by its label and a dot ("pct.d",
// "pct.seed"), and "members" is the portfolio's configuration when it was built from one.
// PortfolioMember turns these back into the member's name and parameters: for a randomized
// member, strategy.New with them runs that execution again as its first one.
type Portfolio struct {
	spec    string // the members configuration, "" when built from strategies
	members []*portfolioMember
	cur     int   // the member of the current execution, -1 before the first
	inTurn  int   // the executions cur has run in a row
	left    []int // the members that left the rotation, in order
	// complete is the guarantee of an unbounded systematic member that exhausted the whole
	// schedule space, which ends the portfolio.
	complete string
	// drewData is set once an execution drew math/rand values: a systematic member's whole
	// schedule space then holds those values fixed, and the randomized members, which draw
	// others, go on.
	drewData bool
	// observing lists the members that learn from the others' executions (Observer), by index.
	observing []int
	// failed says which member the last execution's error took out of the rotation (End),
	// until Recovered tells the exploration.
	failed string
	// execsLeft is how many executions the exploration's time budget still holds
	// (engine.Paced), -1 when it is not known.
	execsLeft int
}

// portfolioMember is one member strategy and its bookkeeping.
type portfolioMember struct {
	label     string
	s         engine.Strategy
	execs     int    // executions begun
	done      bool   // Begin returned false: out of the rotation
	elsewhere bool   // another part of a partitioned portfolio runs this member (Partition)
	turns     int    // executions in a row at each turn (0: 1)
	guarantee string // what the member covered, once done
}

// Learner is implemented by a member strategy that learns from its executions (Greybox, from
// the coverage of its corpus): Learning reports whether its recent executions still taught it
// something new.
type Learner interface {
	Learning() bool
}

// learnerTurns is the most executions in a row a Learner member runs at a turn while it is
// learning, and learnerRamp how many of its executions it takes to earn each one past the
// first: its turns grow from one execution to learnerTurns over its first
// learnerRamp·learnerTurns executions. On misc/safestack, seeds 1–40 of the portfolio,
// 10,000 executions (greybox learning throughout): the bug found with 16 in 32 runs, with 8
// or 5 in 27, with one execution a turn in 8 of seeds 1–20.
const (
	learnerTurns = 16
	learnerRamp  = 100
)

// turnLength is how many executions in a row the member runs at its current turn.
func (m *portfolioMember) turnLength() int {
	n := max(m.turns, 1)
	if l, ok := m.s.(Learner); ok && l.Learning() {
		n *= min(learnerTurns, 1+m.execs/learnerRamp)
	}
	return n
}

// NewPortfolio returns the portfolio of the given member strategies, in rotation order.
// Members are labelled by their names, numbered (name#1, name#2, …) when a name repeats.
func NewPortfolio(members ...engine.Strategy) (*Portfolio, error) {
	if len(members) == 0 {
		return nil, fmt.Errorf("portfolio: no members")
	}
	count := map[string]int{}
	for _, s := range members {
		if s == nil {
			return nil, fmt.Errorf("portfolio: nil member")
		}
		count[memberName(s)]++
	}
	p := &Portfolio{cur: -1, execsLeft: -1}
	seen := map[string]int{}
	for _, s := range members {
		label := memberName(s)
		if count[label] > 1 {
			seen[label]++
			label += "#" + strconv.Itoa(seen[label])
		}
		if _, ok := s.(Observer); ok {
			p.observing = append(p.observing, len(p.members))
		}
		p.members = append(p.members, &portfolioMember{label: label, s: s})
	}
	return p, nil
}

// NewPortfolioParams returns the portfolio that params describe, the parameters strategy.New
// accepts for "portfolio": members — the member strategies joined by "+", each a name
// optionally followed by its parameters, ":key=value" each ("pct:d=3+pos+stride:p=0.0216+idb";
// DefaultPortfolioMembers when absent). Each member is built by New, with a seed derived
// from seed and its position, so that the portfolio's executions are determined by seed; a
// member's own seed parameter is, as usual, the seed of its first execution. A portfolio
// cannot be a member.
func NewPortfolioParams(params map[string]string, seed uint64) (*Portfolio, error) {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k != "members" {
			return nil, fmt.Errorf("portfolio: unknown parameter %q (known: members)", k)
		}
	}
	spec, ok := params["members"]
	if !ok {
		spec = DefaultPortfolioMembers
	}
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, fmt.Errorf("portfolio: parameter members is empty")
	}
	seeds := rand.New(rand.NewPCG(seed, portfolioStream))
	var members []engine.Strategy
	for i, m := range strings.Split(spec, "+") {
		name, rest, _ := strings.Cut(strings.TrimSpace(m), ":")
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, fmt.Errorf("portfolio: member %d of %q has no name", i+1, spec)
		}
		if name == "portfolio" {
			return nil, fmt.Errorf("portfolio: member %d: a portfolio cannot be a member of a portfolio", i+1)
		}
		mp := map[string]string{}
		if rest != "" {
			for _, kv := range strings.Split(rest, ":") {
				k, v, ok := strings.Cut(kv, "=")
				if k = strings.TrimSpace(k); !ok || k == "" {
					return nil, fmt.Errorf("portfolio: member %d (%s): parameter %q: want key=value", i+1, name, kv)
				}
				mp[k] = v
			}
		}
		s, err := New(name, mp, seeds.Uint64())
		if err != nil {
			return nil, fmt.Errorf("portfolio: member %d: %w", i+1, err)
		}
		members = append(members, s)
	}
	p, err := NewPortfolio(members...)
	if err != nil {
		return nil, err
	}
	p.spec = spec
	return p, nil
}

// PortfolioMember returns the name and the parameters of the member that ran the execution
// whose portfolio Params are params (from a schedule file, for example). For a randomized
// member, New(name, memberParams, seed) runs that execution again as its first one; a
// systematic member's execution is its member.execution-th.
func PortfolioMember(params map[string]string) (name string, memberParams map[string]string, err error) {
	label, ok := params["member"]
	if !ok || label == "" {
		return "", nil, fmt.Errorf("portfolio: the parameters name no member")
	}
	name, _, _ = strings.Cut(label, "#")
	name = strings.TrimPrefix(name, unfairPrefix)
	memberParams = map[string]string{}
	prefix := label + "."
	for k, v := range params {
		if rest, ok := strings.CutPrefix(k, prefix); ok {
			memberParams[rest] = v
		}
	}
	return name, memberParams, nil
}

// Name implements engine.Strategy.
func (p *Portfolio) Name() string { return "portfolio" }

// Params implements engine.Strategy: the member of the current execution and its
// parameters (see Portfolio), and the members configuration.
func (p *Portfolio) Params() map[string]string {
	m := map[string]string{}
	if p.spec != "" {
		m["members"] = p.spec
	}
	if p.cur < 0 {
		return m
	}
	mem := p.members[p.cur]
	m["member"] = mem.label
	m["member.execution"] = strconv.Itoa(mem.execs)
	for k, v := range mem.s.Params() {
		m[mem.label+"."+k] = v
	}
	return m
}

// Members returns the member strategies, in rotation order.
func (p *Portfolio) Members() []engine.Strategy {
	out := make([]engine.Strategy, len(p.members))
	for i, m := range p.members {
		out[i] = m.s
	}
	return out
}

// Member returns the member of the current execution (nil before the first execution and
// once the portfolio is exhausted).
func (p *Portfolio) Member() engine.Strategy {
	if p.cur < 0 {
		return nil
	}
	return p.members[p.cur].s
}

// Begin implements engine.Strategy: it begins an execution of the next member in the
// rotation that does not sit out (sitsOut: when few executions are left, the members that
// need many give their turns to the others). A member whose Begin returns false leaves the
// rotation; Begin returns false when every member has.
func (p *Portfolio) Begin() bool {
	if p.begin(true) {
		return true
	}
	for _, m := range p.members {
		if !m.done && !m.elsewhere {
			// Only members that sit out are left: they run after all.
			return p.begin(false)
		}
	}
	p.cur = -1
	return false
}

// begin begins an execution of the next member in the rotation, leaving out the members
// that sit out when sitOut is set, and reports whether one began.
func (p *Portfolio) begin(sitOut bool) bool {
	n := len(p.members)
	share := -1 // each member's share of the executions left, -1: not known
	if active := p.active(); sitOut && p.execsLeft >= 0 && active > 0 {
		share = p.execsLeft / active
	}
	// A member with several turns (Partition's PERIOD member in the first part) runs them in
	// a row before the rotation moves on.
	first := 1
	if p.cur >= 0 && p.inTurn < p.members[p.cur].turnLength() {
		first = 0
	}
	for k := 0; k < n; k++ {
		j := (p.cur + first + k) % n
		if p.cur < 0 {
			j = k
		}
		m := p.members[j]
		if m.done || m.elsewhere || share >= 0 && warmUp(m.s) > share {
			continue
		}
		if m.s.Begin() {
			if j == p.cur {
				p.inTurn++
			} else {
				p.inTurn = 1
			}
			p.cur = j
			m.execs++
			p.observers(func(o Observer) { o.ObserveBegin() })
			return true
		}
		m.done = true
		m.guarantee = "exhausted"
		if x, ok := m.s.(engine.Exhauster); ok {
			m.guarantee = x.Exhausted()
		}
		p.left = append(p.left, j)
		if c, ok := m.s.(interface{ Complete() bool }); ok && c.Complete() && !p.drewData {
			// An unbounded systematic member explored every schedule: the others cannot
			// find anything new, so the portfolio is exhausted with its guarantee. Not when
			// the test draws math/rand values: the member held them fixed (data.go), and
			// the randomized members' executions draw other values, which may reach a bug
			// no schedule of the fixed ones does.
			p.complete = m.label + ": " + m.guarantee
			for _, o := range p.members {
				o.done = true
			}
			break
		}
	}
	return false
}

// active counts the members in the rotation.
func (p *Portfolio) active() int {
	n := 0
	for _, m := range p.members {
		if !m.done && !m.elsewhere {
			n++
		}
	}
	return n
}

// SetExecutionsLeft implements engine.Paced: the executions the exploration's time budget
// still holds, -1 when not known. A member whose warm-up is longer than its share of them —
// the executions left over the members in the rotation — sits out: its turns go to the
// others, until the share grows again (executions that got faster). When every member would,
// none does.
//
// The warm-up (warmer) is what a member needs before its technique pays, in executions of
// its own. Greybox's and stride's are a hundred: greybox builds on a corpus, its turns growing
// over learnerRamp executions (those it observes count), and stride learns the goroutines'
// lengths in its first DefaultStrideLearn; until then each runs random walks, which in a long
// execution switch goroutines every few steps and so reach neither an order that needs a
// goroutine to run a long stretch alone nor, past a few dozen steps, one that needs all of
// them at the same point. A systematic search's is its next level, about one schedule per
// decision of its executions: with fewer executions than that, IDB would only delay the
// execution at its last few decisions (its first schedule, before it knows, it runs). PCT,
// POS and PERIOD have none: PCT's chance of an ordering bug between n goroutines is 1/n in
// every execution whatever its length, POS draws each execution independently, PERIOD's first
// schedules run the goroutines one after another (it finds chainReverse's order within a
// dozen executions of its own), and the unfair member is one execution. So a test whose
// executions are long enough that its budget holds a few dozen — a stress test of hundreds
// of thousands of steps a few times a second — is explored by the members that find bugs in
// few executions (TestPortfolioPacedFindsInFewExecutions: a serial order of three goroutines
// of 200 steps, within 60 executions for seeds 1–10, where the rotation of all seven found
// it for 2), at the cost of the random walks that find a bug of all goroutines at one point
// in a short test (readsFirst) — which a time budget gives thousands of executions, and
// so no member sits out.
func (p *Portfolio) SetExecutionsLeft(n int) { p.execsLeft = n }

// warmer is implemented by the members that need executions of their own before their
// technique pays: warmUp is how many more (SetExecutionsLeft).
type warmer interface {
	warmUp() int
}

// warmUp is the warm-up of member s, 0 for a member that has none.
func warmUp(s engine.Strategy) int {
	if w, ok := s.(warmer); ok {
		return w.warmUp()
	}
	return 0
}

// Restart implements engine.Restarter: each member whose search depends on the scheduling
// points starts over, and rejoins the rotation if it had left it exhausted.
func (p *Portfolio) Restart() {
	for j, m := range p.members {
		rs, ok := m.s.(engine.Restarter)
		if !ok || m.elsewhere {
			continue
		}
		rs.Restart()
		if m.done {
			m.done, m.guarantee = false, ""
			p.left = slices.DeleteFunc(p.left, func(k int) bool { return k == j })
		}
	}
	p.complete = ""
}

// Observer is implemented by a member that learns from the executions the other members run
// too, as the fuzzers of an ensemble share the inputs each found interesting (EnFuzz: Chen et
// al., USENIX Security 2019): Greybox keeps those that covered something new in its corpus,
// and mutates them in its own turns. The portfolio tells it of each execution another member
// begins (ObserveBegin), of each decision with the goroutine picked and each data choice with
// the alternative chosen, and of how the execution ended, with the seed its math/rand values
// came from (ObserveEnd).
type Observer interface {
	ObserveBegin()
	Observe(d *engine.Decision, g engine.GID)
	ObserveChoice(k int)
	ObserveEnd(r *engine.Result, dataSeed uint64)
}

// observers calls f with each member in the rotation, other than the current one, that
// observes the others' executions.
func (p *Portfolio) observers(f func(Observer)) {
	for _, j := range p.observing {
		if m := p.members[j]; j != p.cur && !m.done && !m.elsewhere {
			f(m.s.(Observer))
		}
	}
}

// Pick implements engine.Strategy: the current member picks. Pick runs on the stack of the
// goroutine at the scheduling point, under the member's Pick, whose deepest calls a new
// goroutine's 2 KB stack just holds: its frame is kept to the member's call, the observers'
// out of line (a closure's made it 88 bytes, and the goroutines of a thousand under POS and
// IDB copied their stacks to larger ones, 25% of the portfolio's time).
func (p *Portfolio) Pick(d *engine.Decision) engine.GID {
	g := p.members[p.cur].s.Pick(d)
	if len(p.observing) > 0 {
		p.observePick(d, g)
	}
	return g
}

// observePick shows the members that observe the current one's pick g at d.
//
//go:noinline
func (p *Portfolio) observePick(d *engine.Decision, g engine.GID) {
	p.observers(func(o Observer) { o.Observe(d, g) })
}

// Choose implements engine.Strategy: the current member chooses.
func (p *Portfolio) Choose(c *engine.Choice) int {
	k := p.members[p.cur].s.Choose(c)
	p.observers(func(o Observer) { o.ObserveChoice(k) })
	return k
}

// End implements engine.Strategy: the current member learns how its execution ended. An
// execution its own error aborted (a systematic member that found the program nondeterministic:
// the steps of its explored prefix did not come again) takes the member out of the rotation;
// the exploration goes on with the others (Recovered).
func (p *Portfolio) End(r *engine.Result) {
	p.drewData = p.drewData || r.DrewData
	m := p.members[p.cur]
	m.s.End(r)
	if r.Err != nil {
		if a, ok := m.s.(engine.Aborter); ok && a.Err() != nil {
			p.failed = fmt.Sprintf("%s left the portfolio after %d execution(s), the others went on: %v", m.label, m.execs, a.Err())
			m.done, m.guarantee = true, "left: "+a.Err().Error()
			p.left = append(p.left, p.cur)
			return
		}
	}
	seed := p.DataSeed()
	p.observers(func(o Observer) { o.ObserveEnd(r, seed) })
}

// Recovered implements engine.Recoverer: after an execution that a member's own error aborted
// (End), the exploration goes on while another member is in the rotation.
func (p *Portfolio) Recovered() (notice string, ok bool) {
	notice, p.failed = p.failed, ""
	if notice == "" {
		return "", false
	}
	for _, m := range p.members {
		if !m.done && !m.elsewhere {
			return notice, true
		}
	}
	return "", false
}

// Close implements engine.Closer: each member that holds resources releases them.
func (p *Portfolio) Close() {
	for _, m := range p.members {
		if c, ok := m.s.(engine.Closer); ok {
			c.Close()
		}
	}
}

// Err implements engine.Aborter: the current member's Err, nil when it has none.
func (p *Portfolio) Err() error {
	if p.cur < 0 {
		return nil
	}
	if a, ok := p.members[p.cur].s.(engine.Aborter); ok {
		return a.Err()
	}
	return nil
}

// Exhausted implements engine.Exhauster: the guarantee of every member that left the
// rotation, in the order they left ("" when none has). Before the portfolio is exhausted
// it also names the members still in the rotation.
func (p *Portfolio) Exhausted() string {
	if p.complete != "" {
		return p.complete
	}
	if len(p.left) == 0 {
		return ""
	}
	parts := make([]string, 0, len(p.left))
	for _, j := range p.left {
		parts = append(parts, p.members[j].label+": "+p.members[j].guarantee)
	}
	for _, m := range p.members {
		if m.elsewhere {
			parts = append(parts, m.label+": run by the first part")
		}
	}
	msg := strings.Join(parts, "; ")
	var running []string
	for _, m := range p.members {
		if !m.done && !m.elsewhere {
			running = append(running, m.label)
		}
	}
	if len(running) > 0 {
		return msg + " (" + strings.Join(running, ", ") + " still running)"
	}
	return "every member exhausted: " + msg
}

// Probe implements engine.Prober: the last execution's member explored another part's
// schedule (a partitioned portfolio partitions its members).
func (p *Portfolio) Probe() bool {
	if p.cur < 0 {
		return false
	}
	x, ok := p.members[p.cur].s.(engine.Prober)
	return ok && x.Probe()
}

// SetBudget implements engine.Budgeted: each member that uses the bound gets it whole (a
// member runs fewer executions than the run, so the bound holds for it too).
func (p *Portfolio) SetBudget(schedules int) {
	for _, m := range p.members {
		if b, ok := m.s.(engine.Budgeted); ok {
			b.SetBudget(schedules)
		}
	}
}

// ObservesAtomics implements engine.AtomicsObserver: whether the current member, or a member
// that observes its execution (Observer), observes the atomic variables (greybox does).
func (p *Portfolio) ObservesAtomics() bool {
	if p.cur < 0 {
		return false
	}
	observes := func(s engine.Strategy) bool {
		o, ok := s.(engine.AtomicsObserver)
		return ok && o.ObservesAtomics()
	}
	if observes(p.members[p.cur].s) {
		return true
	}
	seen := false
	p.observers(func(o Observer) { seen = seen || observes(o.(engine.Strategy)) })
	return seen
}
