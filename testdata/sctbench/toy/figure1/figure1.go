// Package figure1 is Figure 1 of Thomson, Donaldson & Betts, "Concurrency
// Testing Using Controlled Schedulers: An Empirical Study" (seed 004): the
// simple multithreaded program used to explain preemption and delay bounding.
//
// T0 (the test goroutine) launches three threads and waits for them. T1 sets
// x=1 then y=1, T2 sets z=1 and T3 asserts x==y. The assertion fails when T3
// runs between T1's two writes (schedule <a, b, e>: one preemption, one
// delay). Threads: 4 (T0 plus three goroutines), as in the figure. Nothing
// is simplified; the variables are plain fields accessed without
// synchronization, as in the figure.
package figure1

import "sync"

// State holds the figure's shared variables, all initially zero.
type State struct {
	X, Y, Z int
}

// Run executes the program of Figure 1 and reports whether T3's assertion
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
		s.Z = 1 // d
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
