// The plateau of an exploration (Config.Plateau): where its executions stop showing anything
// new, so that the rest of a default budget would be spent on nothing.

package engine

import "time"

// The plateau's rule. What an execution shows is measured by a coverage that a test can
// exhaust: the pairs of operations in a row on an object (pairCoverage: which operation
// follows which, by kind and source position, by one goroutine or two) and the data races
// (pairs of positions). The first execution shows its pairs for the first time; a later one
// is new when it covers a pair or shows a race no earlier one did. The exploration stops
// once the executions since the last new one number at least max(Config.Plateau, that last
// new one's number): at least the floor, and at least as many as it took to reach the last
// thing found. The floor is for the rare pairs a strategy reaches seldom (one reached once
// in a thousand executions is seen in the floor's executions with probability 63%, in the
// default budget's 10,000 with 99.99%), which is why it applies to a default budget only,
// never to an explicit one. With a time budget, the floor is counted in time as well: it is
// at most the executions that Config.PlateauTime holds at the mean duration of the executions
// so far (a twentieth of the test's time budget, 0.25s of the default 5s), and never fewer
// than PlateauMin. A test whose executions take a millisecond or less keeps its thousand
// (misc/safestack, 60µs an execution, goes 925 executions without a new pair before the
// ones that lead to its bug); one whose executions take 3ms (the worker pools of
// testdata/realmods, which cover their pairs within a few hundred executions and spent 80%
// of their default run on the floor) waits a twentieth of its budget for a new pair, not
// 3s: long executions get proportionally fewer schedules, as the budget's other bounds give
// them. PlateauMin keeps at least the executions of a hundred-schedule run (-schedules 100)
// after the last new pair. The second term makes the rule scale-free: a test whose
// strategies still find a new pair after thousands of executions (a lock-free stack whose
// preemptions lead, one by one, to new orders: SCTBench's misc/safestack shows new pairs at
// executions 977, 1,112, 1,324, 2,577 and 2,581 before its bug at 2,783) is explored for as
// long again after each, while one that covered everything in its first hundred executions
// stops after the floor.
//
// The distinct interleavings are not the measure: a program with a few goroutines and a few
// hundred steps has more of them than any budget runs, so that almost every execution is a
// new one and the plateau would never come (the worker pools of testdata/realmods: 6,000
// distinct interleavings in 10,000 executions, every test to its time budget; their pairs,
// 20 to 100 a test, all covered within the first few hundred executions in most tests).
// Neither is a strategy's own measure (greybox counts the states of the atomic variables,
// which counters keep making new).
//
// A test none of whose executions had a scheduling choice — one goroutine, no select between
// ready cases, no timer that may fire — has one schedule: it is explored once, and, when it
// draws math/rand values (its only nondeterminism), until PlateauDataOnly executions in a
// row showed nothing new.
const (
	PlateauDataOnly = 100
	// DefaultPlateau is the floor the explore package gives Config.Plateau for a default
	// budget.
	DefaultPlateau = 1000
	// PlateauMin is the least the floor is cut to by Config.PlateauTime.
	PlateauMin = 100
	// PlateauTimeShare is the share of a test's time budget that the explore package gives
	// Config.PlateauTime: a twentieth.
	PlateauTimeShare = 20
)

// plateau tracks what the executions of an exploration showed last.
type plateau struct {
	lastNew  int  // the number of the last execution that showed something new
	choice   bool // an execution had a scheduling choice
	drewData bool // an execution drew math/rand values
}

// note takes in execution n's result; fresh says whether it covered a new pair or showed a
// new race.
func (p *plateau) note(n int, res *Result, fresh bool) {
	if res.Goroutines > 1 || res.Choices > 0 {
		p.choice = true
	}
	if res.DrewData {
		p.drewData = true
	}
	if fresh || p.lastNew == 0 {
		p.lastNew = n
	}
}

// reached says whether the exploration, after n executions in elapsed, is at its plateau,
// with the executions in a row that showed nothing new. The floor is cut to the executions
// that floorTime holds at the mean duration so far (not below PlateauMin) when floorTime is
// positive.
func (p *plateau) reached(floor, n int, floorTime, elapsed time.Duration) (window int, stop bool) {
	if floor <= 0 || n == 0 {
		return 0, false
	}
	switch {
	case !p.choice && !p.drewData:
		return n, true
	case !p.choice:
		window = min(floor, PlateauDataOnly)
	default:
		window = max(timedFloor(floor, n, floorTime, elapsed), p.lastNew)
	}
	return n - p.lastNew, n-p.lastNew >= window
}

// timedFloor is the plateau's floor after n executions in elapsed: floor, or the executions
// that floorTime holds at their mean duration when they are fewer, but not fewer than
// PlateauMin (nor more than floor).
func timedFloor(floor, n int, floorTime, elapsed time.Duration) int {
	if floorTime <= 0 || elapsed <= 0 {
		return floor
	}
	fit := float64(floorTime) / float64(elapsed) * float64(n)
	if fit >= float64(floor) {
		return floor
	}
	return min(floor, max(PlateauMin, int(fit)))
}
