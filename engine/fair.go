package engine

import "math/bits"

// Fairness. Go's scheduler never lets a running goroutine starve the others: with several
// processors they run in parallel, and even on one, a goroutine running for 10ms is preempted.
// A controlled execution runs one goroutine at a time, so without a rule a goroutine that
// busy-waits without a yield (for !flag.Load() {}, for sem.TryAcquire(1) { sem.Release(1) })
// would run forever in every schedule that keeps picking it, and a correct program would be
// reported as a livelock. The rule: when the last goroutine has executed FairSteps steps in a
// row while another goroutine was enabled, its last operation counts as a yield
// (Decision.LastOp is OpYield), which the strategies treat as runtime.Gosched: the systematic
// ones switch for free, PCT lowers its priority (SCTBench §3, "Busy-wait loops"). A genuine
// livelock (goroutines waiting on each other forever) still reaches the step bound.

// DefaultFairSteps is the Config.FairSteps used when it is 0: long enough that no program
// written to be scheduled fairly notices (a run of a thousand visible operations takes tens
// of microseconds natively, while two processors would interleave them at once).
const DefaultFairSteps = 1000

// fairSteps is the bound c asks for: 0 when there is none.
func (c *Config) fairSteps() int {
	switch {
	case c.FairSteps == 0:
		return DefaultFairSteps
	case c.FairSteps < 0:
		return 0
	}
	return c.FairSteps
}

// fairYield reports whether the step being decided must treat the last goroutine as having
// yielded, by the fairness rule.
func (e *Exec) fairYield() bool {
	return e.fairSteps > 0 && e.runLen >= e.fairSteps && e.nEnabled > 1
}

// Fairness across goroutines. The rule above keeps one goroutine from running forever, but
// two goroutines that hand a channel back and forth take turns, and a strategy that prefers
// them (PCT's priorities, a DFS branch that never switches to the third) can pass over a third,
// enabled goroutine forever, where Go's scheduler would run it: the execution ends at the step
// bound, a false livelock that hides what the third goroutine would do. The rule, after the
// fair stateless model checking of CHESS (Musuvathi & Qadeer, PLDI 2008: a thread that keeps
// being passed over gets to run): a goroutine enabled and passed over for starveFactor ×
// FairSteps steps is the only choice offered at the next decision. The choice is a function of
// the schedule so far, so systematic strategies see one alternative there and replays make it
// again. It is then the only choice for starveSlice steps in a row, or until it blocks or ends:
// a time slice, as Go's scheduler gives a goroutine whose turn comes, in which it runs until it
// blocks or is preempted. One step at a time, a goroutine that must take thirty steps to free a
// hundred spinning ones (a flag set after a few reads) would get its thirty steps over thirty
// rounds of the starved goroutines' turns, a hundred spinners each, and the execution would end
// at the step bound, a livelock that Go's scheduler never lets happen; with slices as long as
// the fairness bound, the spinners' slices alone would be a hundred thousand steps. A spin
// loop that can never make progress still runs into the step bound.

// starveFactor times FairSteps is how many steps an enabled goroutine can be passed over.
const starveFactor = 4

// starveSlice is the length of the slice a starved goroutine runs, in steps.
const starveSlice = 64

// starveCheck masks the steps at which starvation is looked for: every 64th, so that the rule
// costs nothing on the hot path of the others.
const starveCheck = 63

// unstarve reports whether a goroutine was passed over for the bound, and then sets
// e.starved to the one that has waited longest: the only goroutine the strategy may pick.
//
// The step since which the longest-waiting enabled goroutine has waited never goes back: a
// goroutine's since is set to the current step when it is enabled or picked (its queue's, when
// a mutex's waiters are enabled together), and one that is disabled leaves the set. So the
// last one found, e.starveFloor, bounds it from below until the next pass, and no pass over
// the enabled goroutines is needed before the bound could be reached from there.
func (e *Exec) unstarve() bool {
	if e.steps-e.starveFloor < starveFactor*e.fairSteps {
		return false
	}
	oldest, oldestSince := NoGoroutine, 0
	for i, w := range e.en.words {
		for w != 0 {
			id := GID(i<<6 + bits.TrailingZeros64(w))
			w &= w - 1
			if s := e.sinceOf(id); oldest == NoGoroutine || s < oldestSince {
				oldest, oldestSince = id, s
			}
		}
	}
	e.starveFloor = oldestSince
	if e.steps-oldestSince < starveFactor*e.fairSteps {
		return false
	}
	e.starved[0] = oldest
	return true
}

// starving reports whether the next decision offers only the goroutine in e.starved: the rest
// of the slice of a goroutine the rule made run, or one that unstarve finds, whose slice
// starts.
func (e *Exec) starving() bool {
	if e.slice > 0 && e.last == e.starved[0] && e.en.has(e.last) {
		e.slice--
		return true
	}
	e.slice = 0
	if e.steps&starveCheck == 0 && e.unstarve() {
		e.slice = starveSlice - 1
		return true
	}
	return false
}

// countRun updates the run length of the last goroutine once next is picked.
func (e *Exec) countRun(next GID) {
	switch {
	case next != e.last:
		e.runLen = 0
	case e.nEnabled > 1:
		e.runLen++
	}
}
