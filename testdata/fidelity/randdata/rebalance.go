// Package randdata is issue 15's item 3: a bug behind a random value. Each execution must
// draw its own math/rand values (from its seed, recorded in the schedule), or the branch that
// 3% of the draws take is never explored (unless the one fixed draw happens to take it).
package randdata

import (
	"math/rand"
	"sync"
)

// Shards are two locked shards; Move moves an item from one to the other.
type Shards struct {
	a, b   sync.Mutex
	na, nb int
}

// MoveRandom moves an item from a to b, or, for 3% of the moves, rebalances from b to a taking the
// locks in the other order (the bug: it can deadlock with a concurrent move).
func (s *Shards) MoveRandom() {
	if rand.Float64() > 0.97 {
		s.b.Lock()
		s.a.Lock()
		s.nb--
		s.na++
	} else {
		s.a.Lock()
		s.b.Lock()
		s.na--
		s.nb++
	}
	s.b.Unlock()
	s.a.Unlock()
}

// Move does the same but always takes a before b (the fix).
func (s *Shards) Move() {
	s.a.Lock()
	s.b.Lock()
	if rand.Intn(8) == 0 {
		s.nb--
		s.na++
	} else {
		s.na--
		s.nb++
	}
	s.b.Unlock()
	s.a.Unlock()
}

// Concurrently runs the moves at once.
func Concurrently(moves ...func()) {
	var wg sync.WaitGroup
	wg.Add(len(moves))
	for _, move := range moves {
		go func() {
			defer wg.Done()
			move()
		}()
	}
	wg.Wait()
}
