// Package din_phil3_sat is SCTBench benchmark 10, CS.din_phil3_sat.
//
// The original starts N=3 philosophers; each takes its right and then its
// left fork (mutexes) inside an atomic section (a global mutex in SCTBench),
// puts them back, and then counts itself as having eaten. The program
// asserts that the count never reaches N ("sat": the failure is reachable),
// so it fails whenever all philosophers count themselves.
// The increment of the count of philosophers that have eaten is outside any
// lock, so a lost update can keep the count below N in some interleavings.
// 4 threads: main and N philosophers.
//
// Kept as is, so this test fails natively too (the study found all or almost
// all schedules buggy).
package din_phil3_sat

import (
	"errors"
	"sync"
)

const n = 3

type table struct {
	atomic sync.Mutex // the original's __ESBMC_atomic_begin/end
	forks  [n]sync.Mutex
	phil   int
}

func (s *table) philosopher(id int) error {
	left, right := id, (id+1)%n
	s.atomic.Lock()
	s.forks[right].Lock()
	s.forks[left].Lock()
	s.forks[left].Unlock()
	s.forks[right].Unlock()
	s.atomic.Unlock()

	s.phil++
	if s.phil == n {
		return errors.New("all philosophers ate")
	}
	return nil
}

// Run starts the philosophers, joins them and returns the first assertion
// failure.
func Run() error {
	s := &table{}
	errs := make([]error, n)
	var wg sync.WaitGroup
	wg.Add(n)
	for i := 0; i < n; i++ {
		go func(id int) { defer wg.Done(); errs[id] = s.philosopher(id) }(i)
	}
	wg.Wait()
	return errors.Join(errs...)
}
