// The plateau of an exploration (Config.Plateau): where its executions stop showing anything
// new, so that the rest of a default budget would be spent on nothing.

package engine

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
// never to an explicit one. The second term makes the rule scale-free: a test whose
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

// reached says whether the exploration, after n executions, is at its plateau, with the
// executions in a row that showed nothing new.
func (p *plateau) reached(floor, n int) (window int, stop bool) {
	if floor <= 0 || n == 0 {
		return 0, false
	}
	switch {
	case !p.choice && !p.drewData:
		return n, true
	case !p.choice:
		window = min(floor, PlateauDataOnly)
	default:
		window = max(floor, p.lastNew)
	}
	return n - p.lastNew, n-p.lastNew >= window
}
