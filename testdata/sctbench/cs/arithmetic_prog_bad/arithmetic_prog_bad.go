// Package arithmetic_prog_bad is SCTBench benchmark 4, CS.arithmetic_prog_bad.
//
// The original is a one-slot producer/consumer on a mutex and two condition
// variables: the producer makes N=3 items, the consumer adds its loop index
// to a total for each item it takes and then adds N once more. Main joins
// both and asserts that the total is not N(N+1)/2 — but 0+1+2+3 is exactly
// that, so the assertion fails in every interleaving (the study found 100%
// of schedules buggy). Three threads: main, producer, consumer.
//
// Kept as is, so this test fails natively too. The consumer's last update of
// the total and the flag happen outside the lock, as in the original, and
// both threads signal after unlocking, as the original does.
package arithmetic_prog_bad

import (
	"fmt"
	"sync"
)

const n = 3

type state struct {
	m           sync.Mutex
	empty, full *sync.Cond
	num         int
	total       int
	flag        bool
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
	j := 0
	for j < n {
		s.m.Lock()
		for s.num == 0 {
			s.full.Wait()
		}
		s.total = s.total + j
		s.num--
		s.m.Unlock()
		s.empty.Signal()
		j++
	}
	s.total = s.total + j
	s.flag = true
}

// Run runs the producer and the consumer to completion and returns main's
// assertion failure.
func Run() error {
	s := &state{}
	s.empty = sync.NewCond(&s.m)
	s.full = sync.NewCond(&s.m)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.producer() }()
	go func() { defer wg.Done(); s.consumer() }()
	wg.Wait()
	if s.flag && s.total == n*(n+1)/2 {
		return fmt.Errorf("total is %d = N(N+1)/2", s.total)
	}
	return nil
}
