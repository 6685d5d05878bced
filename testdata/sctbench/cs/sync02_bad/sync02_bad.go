// Package sync02_bad is SCTBench benchmark 26, CS.sync02_bad.
//
// The original is a producer/consumer of N=2 items each on a count guarded
// by a mutex and two condition variables, but the count starts at 2: the
// consumer takes the two initial items and finishes, the producer makes one
// item and then waits on "empty" for the count to drop, which nobody does
// any more — a deadlock in every interleaving (the study: 100% buggy). Three
// threads: main, producer, consumer.
//
// Kept as is, so this test deadlocks natively too (it hangs until the test
// timeout).
package sync02_bad

import "sync"

const n = 2

type state struct {
	m           sync.Mutex
	empty, full *sync.Cond
	num         int
}

func (s *state) producer() {
	for i := 0; i < n; i++ {
		s.m.Lock()
		for s.num > 0 {
			s.empty.Wait()
		}
		s.num++
		s.m.Unlock()
		s.full.Signal()
	}
}

func (s *state) consumer() {
	for j := 0; j < n; j++ {
		s.m.Lock()
		for s.num == 0 {
			s.full.Wait()
		}
		s.num--
		s.m.Unlock()
		s.empty.Signal()
	}
}

// Run starts the producer and the consumer and joins them; it deadlocks.
func Run() {
	s := &state{num: 2}
	s.empty = sync.NewCond(&s.m)
	s.full = sync.NewCond(&s.m)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.producer() }()
	go func() { defer wg.Done(); s.consumer() }()
	wg.Wait()
}
