// Package deadlock01_bad is SCTBench benchmark 8, CS.deadlock01_bad.
//
// The original has two threads take mutexes a and b in opposite orders
// around an update of a counter: each can hold its first mutex while the
// other holds the second, a deadlock. Three threads: main and the two
// workers.
package deadlock01_bad

import "sync"

type state struct {
	a, b    sync.Mutex
	counter int
}

func (s *state) thread1() {
	s.a.Lock()
	s.b.Lock()
	s.counter++
	s.b.Unlock()
	s.a.Unlock()
}

func (s *state) thread2() {
	s.b.Lock()
	s.a.Lock()
	s.counter--
	s.a.Unlock()
	s.b.Unlock()
}

// Run starts both threads and joins them; it deadlocks in a buggy
// interleaving.
func Run() {
	s := &state{counter: 1}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.thread1() }()
	go func() { defer wg.Done(); s.thread2() }()
	wg.Wait()
}
