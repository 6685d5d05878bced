// Package sen_example is the motivating example of Koushik Sen, "Effective
// Random Testing of Concurrent Programs" (seed 001): it shows why choosing a
// random enabled thread at every step samples partial orders unevenly.
//
// One goroutine writes y three times (y=1, y=2, y=3) and then x=4; the other
// checks x and fails if it sees 4. The bug needs the checking goroutine to
// run last, after all four writes; a naive random scheduler finds it with
// probability 1/2^4 per run, although only two of the five partial orders
// are distinguishable. Threads: 3 (the test goroutine starts both and waits).
// Nothing is simplified.
package sen_example

import "sync"

// Run executes the example and reports whether the assertion x != 4 held.
func Run() bool {
	var x, y int
	ok := true
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // thread 1
		defer wg.Done()
		y = 1
		y = 2
		y = 3
		x = 4
	}()
	go func() { // thread 2
		defer wg.Done()
		if x == 4 {
			ok = false
		}
	}()
	wg.Wait()
	_ = y
	return ok
}
