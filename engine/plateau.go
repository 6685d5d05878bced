// The plateau of an exploration (Config.Plateau): where its executions stop showing anything
// new, so that the rest of a default budget would be spent on nothing.

package engine

// The plateau's rule. An exploration stops once the last max(Config.Plateau,
// PlateauFactor·K) executions showed nothing new, K being the distinct interleavings found so
// far: no new interleaving (happens-before order, Result.Fingerprint), no new data race (pair
// of positions), and nothing new by the strategy's own measure (Coverer: greybox's operation
// pairs and states of the atomic variables). The factor is the coupon collector's: when the
// executions draw among K interleavings about evenly, one not seen yet is missed by 10·K more
// executions with probability e^-10; the floor is for the rare ones a strategy reaches seldom
// (a schedule reached once in a thousand executions is seen in the floor's executions with
// probability 63%, in the default budget's 10,000 with 99.99%), which is why it applies to a
// default budget only, never to an explicit one.
//
// A test none of whose executions had a scheduling choice — one goroutine, no select between
// ready cases, no timer that may fire — has one schedule: it is explored once, and, when it
// draws math/rand values (its only nondeterminism), until PlateauDataOnly executions in a
// row showed nothing new.
const (
	PlateauFactor   = 10
	PlateauDataOnly = 100
	// DefaultPlateau is the floor the explore package gives Config.Plateau for a default
	// budget.
	DefaultPlateau = 1000
)

// Coverer is implemented by strategies that measure what an execution covered (greybox: the
// pairs of operations on an object and the states of the atomic variables; a portfolio: any
// of its members that does): after End, NewCoverage reports whether the execution that just
// ended covered something no earlier execution had. An exploration with Config.Plateau goes
// on while executions do.
type Coverer interface {
	NewCoverage() bool
}

// plateau tracks what the executions of an exploration showed last.
type plateau struct {
	lastNew  int  // the number of the last execution that showed something new
	choice   bool // an execution had a scheduling choice
	drewData bool // an execution drew math/rand values
}

// note takes in execution n's result; fresh says whether it showed a new interleaving or a
// new race.
func (p *plateau) note(n int, res *Result, fresh bool, s Strategy) {
	if res.Goroutines > 1 || res.Choices > 0 {
		p.choice = true
	}
	if res.DrewData {
		p.drewData = true
	}
	if c, ok := s.(Coverer); ok && c.NewCoverage() {
		fresh = true
	}
	if fresh {
		p.lastNew = n
	}
}

// reached says whether the exploration, after n executions with k distinct interleavings,
// is at its plateau, with the executions in a row that showed nothing new.
func (p *plateau) reached(floor, n, k int) (window int, stop bool) {
	if floor <= 0 || n == 0 {
		return 0, false
	}
	switch {
	case !p.choice && !p.drewData:
		return n, true
	case !p.choice:
		window = min(floor, PlateauDataOnly)
	default:
		window = max(floor, PlateauFactor*k)
	}
	return n - p.lastNew, n-p.lastNew >= window
}
