// Package figure2 is Figure 2 of Thomson, Donaldson & Betts, "Concurrency
// Testing Using Controlled Schedulers: An Empirical Study" (seed 004): the
// adversarial delay-bounding example, Figure 1 with T2's statement replaced
// by a copy of T1's.
//
// T0 (the test goroutine) launches three threads and waits for them. T1 and
// T2 each set x=1 then y=1 and T3 asserts x==y. The assertion fails when T3
// runs after some x=1 but before the matching y=1 (e.g. <a, b, e>: one
// preemption but two delays, since T2 must be skipped too). Threads: 4.
// Nothing is simplified.
package figure2

import "sync"

// State holds the figure's shared variables, all initially zero.
type State struct {
	X, Y int
}

// Run executes the program of Figure 2 and reports whether T3's assertion
// x==y held.
func Run() bool {
	var s State
	ok := true
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { // T1
		defer wg.Done()
		s.X = 1 // b
		s.Y = 1 // c
	}()
	go func() { // T2
		defer wg.Done()
		s.X = 1 // f
		s.Y = 1 // g
	}()
	go func() { // T3
		defer wg.Done()
		if s.X != s.Y { // e
			ok = false
		}
	}()
	wg.Wait()
	return ok
}
