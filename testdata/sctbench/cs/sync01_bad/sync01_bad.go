// Package sync01_bad is SCTBench benchmark 25, CS.sync01_bad.
//
// The original starts with one item in a one-slot buffer guarded by a mutex
// and two condition variables. The producer waits on "empty" while the slot
// is full and then fills it; the consumer waits on "full" while it is empty
// but (its decrement is commented out) never takes the item, then signals
// "empty". The producer's wait condition never changes: after the
// consumer's single signal (or before it, a lost wakeup) the producer waits
// forever — a deadlock in every interleaving (the study: 100% buggy). Three
// threads: main, producer, consumer.
//
// Kept as is, so this test deadlocks natively too (it hangs until the test
// timeout).
package sync01_bad

import "sync"

type state struct {
	m           sync.Mutex
	empty, full *sync.Cond
	num         int
}

func (s *state) producer() {
	s.m.Lock()
	for s.num > 0 {
		s.empty.Wait()
	}
	s.num++
	s.m.Unlock()
	s.full.Signal()
}

func (s *state) consumer() {
	s.m.Lock()
	for s.num == 0 {
		s.full.Wait()
	}
	// The original does not consume here.
	s.m.Unlock()
	s.empty.Signal()
}

// Run starts the producer and the consumer and joins them; it deadlocks.
func Run() {
	s := &state{num: 1}
	s.empty = sync.NewCond(&s.m)
	s.full = sync.NewCond(&s.m)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.producer() }()
	go func() { defer wg.Done(); s.consumer() }()
	wg.Wait()
}
