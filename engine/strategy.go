package engine

import (
	"math"
	"slices"
	"time"
)

// Strategy chooses the interleaving of each execution. It is an oracle that lives across
// executions, with this lifecycle:
//
//	for strategy.Begin() {          // a new execution starts
//		... strategy.Pick(d) ...    // once per step: which enabled goroutine runs it
//		... strategy.Choose(c) ...  // once per nondeterministic data choice (a select)
//		strategy.End(result)        // how the execution ended
//	}
//
// The engine never knows which strategy runs. Systematic strategies keep their search state
// between executions and return false from Begin when their space is exhausted; randomized
// strategies re-seed per execution so that each execution is reproducible from its parameters.
type Strategy interface {
	// Name is the strategy's short name, as used on the command line ("pct", "idb", ...).
	Name() string
	// Params are the parameters of the current execution, recorded in schedule files (for
	// a randomized strategy they include the execution's seed).
	Params() map[string]string
	// Begin prepares a new execution. It returns false when there is nothing left to explore.
	Begin() bool
	// Pick returns the goroutine that executes the next step: one of d.Enabled(). Returning a
	// goroutine that is not enabled ends the execution with the strategy's Err as the reason
	// (the replay strategy does this when an execution diverges from its file).
	Pick(d *Decision) GID
	// Choose returns which of c.N alternatives a nondeterministic choice takes, in [0, c.N).
	Choose(c *Choice) int
	// End reports how the execution ended.
	End(r *Result)
}

// Restarter is implemented by systematic strategies, whose search is a tree of the program's
// scheduling decisions: when the scheduling points change between executions (Explore makes
// the accesses of a race first seen during exploration points, with Config.Points racy), that
// tree is no longer the program's, and Restart starts the search over on the new one. What it
// then reports as exhausted is of the new tree.
type Restarter interface {
	Restart()
}

// DataSeeder is implemented by strategies that give each execution its own source of data
// nondeterminism: DataSeed is the seed of the execution's math/rand values (rand.go), 0 for
// the fixed seed. Randomized strategies derive it from the execution's seed, so a bug behind
// rand.Intn(2) == 0 is reached in about half the executions; the replay strategy gives the
// recorded one. A strategy that does not implement it (DFS, IPB, IDB, PERIOD) explores every
// execution with the same values: its claim of exhaustiveness says so.
type DataSeeder interface {
	DataSeed() uint64
}

// Budgeted is implemented by strategies that use the exploration's bound on executions
// (Config.Schedules): a systematic search keeps no more branches waiting for a later bound
// than executions can remain, since each takes at least one. Explore calls SetBudget once,
// before the first execution, when the bound is set.
type Budgeted interface {
	SetBudget(schedules int)
}

// Paced is implemented by strategies that plan by how many executions the exploration's time
// budget still allows (a portfolio gives the turns of its members that need many executions
// to those that find bugs in few, when few remain). Before each execution but the first,
// Explore calls SetExecutionsLeft with the executions the rest of the time budget holds at the
// mean duration of those run so far (ExecutionsLeft), and with -1 when the exploration has no
// time budget: a budget of schedules alone (Config.Schedules) is explored as it always was.
type Paced interface {
	SetExecutionsLeft(n int)
}

// PaceSamples is how many executions ExecutionsLeft needs before it estimates.
const PaceSamples = 10

// ExecutionsLeft is how many more executions a time budget holds after n executions took
// elapsed: the rest of the budget at their mean duration, no more than the schedules left
// when there is a budget of schedules too (schedules > 0). It is -1 without a time budget or
// before PaceSamples executions: not known. The first executions pay one-time costs (a test
// binary's first run, its page faults, a loaded machine's pauses), so a mean of one or two
// would make a short test look long and its exploration depend on the machine's load.
func ExecutionsLeft(budget, elapsed time.Duration, n, schedules int) int {
	if budget <= 0 || n < PaceSamples {
		return -1
	}
	left := 0
	if elapsed <= 0 {
		left = math.MaxInt
	} else if rest := budget - elapsed; rest > 0 {
		left = int(min(float64(rest)/float64(elapsed)*float64(n), math.MaxInt32))
	}
	if schedules > 0 {
		left = min(left, max(schedules-n, 0))
	}
	return left
}

// WholeScheduleSpace is how a search that exhausted every schedule of the program says so:
// every schedule of the model, which orders channel, sync, atomic and timer operations, the
// memory accesses that are scheduling points (-points) and the starts of goroutines that do
// something observable (a t.Log) before their first scheduling point (such a goroutine's
// start is a step of its own, which may come after any of its parent's later steps), with
// one short delay past a sleep (-sleeps), and leaves out orders that only a goroutine delayed
// longer, or left unscheduled longer than the fairness rule allows, would give.
const WholeScheduleSpace = "(the whole schedule space of the model: orders of sync, channel, atomic and timer operations, point accesses and the starts of goroutines that log before their first point, and one delay past a sleep of up to 10ms unless -sleeps=order; not longer delays, nor unfairness past -fair-steps)"

// Exhauster is implemented by strategies whose space can be exhausted. After Begin has
// returned false, Exhausted describes what was covered, for example "all 1204 schedules with
// ≤ 2 delays explored".
type Exhauster interface {
	Exhausted() string
}

// Prober is implemented by strategies that explore one part of a partitioned search
// (strategy.Partition: the workers of -p, the shards of -shard). A systematic strategy must
// sometimes execute a schedule of another part to learn the shape of the tree above its own
// part; after End, Probe reports whether the last execution was such a probe. A probe is not
// counted, and its bug and races are not reported: the part that owns the schedule explores
// it.
type Prober interface {
	Probe() bool
}

// Halter is implemented by strategies whose Begin can return false for a reason other than
// an exhausted space: a strategy that explores in step with other processes (strategy.Lockstep)
// stops when they reach the run's budget together, or when another process ended. Halted
// returns "" when Begin returned false because the space is exhausted, and otherwise the reason,
// a Report.Stopped value ("schedules", "canceled", "error"), with the error of "error".
type Halter interface {
	Halted() (string, error)
}

// PointsSharer is implemented by strategies that can explore in step with other processes,
// which must make the same racy accesses scheduling points at the same moment of the search
// (strategy.Lockstep). When SharesRacyPoints (asked once, as the exploration starts) and
// Config.Points is racy, Explore gives ShareRacyPoints the positions that the races of each
// execution would make points (those that are not yet), instead of making them, and after each
// Begin makes AgreedRacyPoints points: the positions every process makes points there.
type PointsSharer interface {
	SharesRacyPoints() bool
	ShareRacyPoints(new []Pos)
	AgreedRacyPoints() []Pos
}

// Numberer is implemented by strategies that can explore one part of a run whose executions
// have one order (strategy.Partition of a randomized strategy, strategy.Lockstep): Number is
// the current execution's number in the whole run, from 1, which Report.FirstAt gives instead
// of its number in this process; 0 when the two are the same (the whole run).
type Numberer interface {
	Number() int
}

// Closer is implemented by strategies that hold resources between executions (a generator's
// goroutine): Explore calls Close when it returns, unless it abandoned an execution (which
// may still be running the strategy). A strategy explored again after Close starts them anew.
type Closer interface {
	Close()
}

// FairBounder is implemented by strategies that run some executions with a fairness bound of
// their own (fair.go): a portfolio's member that lets one goroutine run long while others
// wait, as Go's scheduler may for up to its 10ms time slice, so that a lost wake-up (a
// thousand signals before the waiter reaches Wait) is reachable. FairSteps is the bound of
// the execution just begun, 0 for Config.FairSteps'. It is ignored when Config turns fairness
// off.
type FairBounder interface {
	FairSteps() int
}

// Aborter is implemented by strategies that can refuse to go on (a replay that diverged).
// Err is consulted when Pick returns a goroutine that is not enabled or Choose an alternative
// out of range.
type Aborter interface {
	Err() error
}

// Recoverer is implemented by a strategy that can go on after an execution that its own error
// aborted (Aborter): a portfolio whose systematic member found the program nondeterministic
// takes that member out of the rotation and lets the others go on. After the End of an
// execution with an error, Recovered says whether the exploration goes on, and what to tell the
// user (Report.Notices); the aborted execution is not counted.
type Recoverer interface {
	Recovered() (notice string, ok bool)
}

// Decision is what a strategy sees at a scheduling point. It is only valid during Pick.
type Decision struct {
	// Step is the number of the step being chosen; the first step is 1.
	Step int
	// Last is the goroutine that executed the previous step (NoGoroutine before step 1),
	// and LastEnabled whether it is still enabled: switching away from an enabled Last is a
	// preemption (SCTBench §2.3).
	Last        GID
	LastEnabled bool
	// LastOp is the operation the previous step executed. After a yield (runtime.Gosched,
	// a busy-wait loop) the systematic strategies force a switch and PCT lowers the
	// goroutine's priority (SCTBench §3, "Busy-wait loops").
	LastOp OpKind
	// Goroutines is the number of goroutines created so far in this execution.
	Goroutines int

	// list, when not nil, is what Enabled returns: in an execution, the goroutine the
	// fairness rule makes run, the only one offered (fair.go: the others are enabled but
	// starving it); outside one, the goroutines given to WithEnabled.
	list []GID

	e *Exec
}

// Opened is the operation the previous step executed when that step started a goroutine (the
// goroutine's pending operation was OpStart, and LastOp is then the kind of what it did): a
// go statement's goroutine, picked at its start, runs to its first scheduling point and, when
// its first operation can proceed, executes it in the same step. Otherwise (another step, or
// a start whose goroutine blocked at its first operation or returned before any) it is the
// zero Op. A strategy that reasons about what a step did — which events race with it — takes
// this operation for the start's step.
func (d *Decision) Opened() Op {
	if d.e == nil || d.e.openedAt == 0 || d.e.openedAt != d.Step-1 {
		return Op{}
	}
	return d.e.opened
}

// Enabled lists the enabled goroutines in creation (id) order. Never empty. With thousands of
// goroutines, building the list can cost a pass over them; a strategy that needs one of them
// at random uses NumEnabled and EnabledAt, which do not build it.
func (d *Decision) Enabled() []GID {
	if d.list != nil || d.e == nil {
		return d.list
	}
	return d.e.enabledList()
}

// NumEnabled is len(d.Enabled()).
func (d *Decision) NumEnabled() int {
	if d.list != nil || d.e == nil {
		return len(d.list)
	}
	return d.e.nEnabled
}

// EnabledAt is d.Enabled()[i].
func (d *Decision) EnabledAt(i int) GID {
	if d.list != nil || d.e == nil {
		return d.list[i]
	}
	return d.e.enabledAt(i)
}

// EnabledWords returns the enabled goroutines as a set of bits, goroutine g at bit g%64 of
// word g/64 (words past the last enabled goroutine may be missing), or nil when the decision
// offers a list instead (the fairness rule's one goroutine, or WithEnabled): then Enabled is
// the set. A strategy that keeps its own sets of goroutines combines them with it a word at a
// time (POS with thousands of goroutines). The words are the engine's: read them during Pick
// only, and do not change them.
func (d *Decision) EnabledWords() []uint64 {
	if d.list != nil || d.e == nil {
		return nil
	}
	return d.e.en.words
}

// NextEnabled returns the first enabled goroutine whose id is at least g, or NoGoroutine:
// a strategy that looks for an enabled goroutine with some property, in id order, walks them
// with it and stops at the one it wants, without the whole list being built.
func (d *Decision) NextEnabled(g GID) GID {
	if d.list != nil || d.e == nil {
		for _, id := range d.list {
			if id >= g {
				return id
			}
		}
		return NoGoroutine
	}
	return d.e.en.next(g)
}

// EnabledBefore returns the number of enabled goroutines whose id is less than g: the
// position in Enabled of the first enabled goroutine from g on.
func (d *Decision) EnabledBefore(g GID) int {
	if d.list != nil || d.e == nil {
		n := 0
		for n < len(d.list) && d.list[n] < g {
			n++
		}
		return n
	}
	return d.e.en.rank(g)
}

// WithEnabled makes d a decision among the goroutines ids (in id order), outside any
// execution: for testing a strategy's Pick on a decision of one's own. Pending returns the
// zero Op for every goroutine of such a decision.
func (d *Decision) WithEnabled(ids ...GID) *Decision {
	d.list, d.e = ids, nil
	return d
}

// Pending returns the operation goroutine g will execute when it is picked: the zero Op for a
// goroutine that has ended (it will execute nothing more), or for no goroutine.
func (d *Decision) Pending(g GID) Op {
	if d.e == nil || g < 0 || int(g) >= len(d.e.gs) || d.e.gs[g].done {
		return Op{}
	}
	return d.e.gs[g].pending
}

// IsEnabled reports whether g is in d.Enabled().
func (d *Decision) IsEnabled(g GID) bool {
	if d.e == nil {
		return slices.Contains(d.list, g)
	}
	if g < 0 || int(g) >= len(d.e.gs) {
		return false
	}
	if d.list != nil {
		return g == d.list[0]
	}
	return d.e.en.has(g) && !d.e.gs[g].done
}

// Choice is a nondeterministic data choice: which of N alternatives is taken.
type Choice struct {
	// N is the number of alternatives, at least 2.
	N int
	// Step is the number of the step during which the choice is made.
	Step int
	// G is the goroutine making the choice, and Op its operation.
	G  GID
	Op Op
}
