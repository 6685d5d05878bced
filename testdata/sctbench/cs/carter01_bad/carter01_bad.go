// Package carter01_bad is SCTBench benchmark 6, CS.carter01_bad.
//
// The original lets operations of class A and class B exclude each other:
// under mutex m a thread counts itself in its class and the first of a class
// takes the class lock l, and the last out releases it. A class-B thread
// that takes m and then blocks on l (held by a class-A thread) keeps m, and
// the class-A thread needs m to leave and release l: a deadlock. Five
// threads: main, one thread of each class and two threads that do nothing
// (kept because they are in the original).
//
// Go's sync.Mutex, like the original's default mutex, may be unlocked by a
// goroutine other than the one that locked it.
package carter01_bad

import "sync"

type state struct {
	m, l sync.Mutex
	a, b int
}

func (s *state) classA() {
	s.m.Lock()
	s.a++
	if s.a == 1 {
		s.l.Lock()
	}
	s.m.Unlock()
	// Perform the class A operation.
	s.m.Lock()
	s.a--
	if s.a == 0 {
		s.l.Unlock()
	}
	s.m.Unlock()
}

func (s *state) classB() {
	s.m.Lock()
	s.b++
	if s.b == 1 {
		s.l.Lock()
	}
	s.m.Unlock()
	// Perform the class B operation.
	s.m.Lock()
	s.b--
	if s.b == 0 {
		s.l.Unlock()
	}
	s.m.Unlock()
}

// Run starts the four threads and joins them; it deadlocks in a buggy
// interleaving.
func Run() {
	s := &state{}
	var wg sync.WaitGroup
	wg.Add(4)
	go func() { defer wg.Done(); s.classA() }()
	go func() { defer wg.Done(); s.classB() }()
	go func() { defer wg.Done() }()
	go func() { defer wg.Done() }()
	wg.Wait()
}
