//go:build go1.21

// Package loopvar is compiled at Go 1.21 (the build constraint sets the file's
// language version), where a for loop's variable is one variable for the
// whole loop: the loop's i++ writes it while the goroutines started in the
// loop read it, the classic captured-loop-variable race that Go 1.22's
// per-iteration variables removed. Go's race detector reports the i++ and the
// read in the goroutine.
package loopvar

import "sync"

// Sum adds 0, 1, ..., n-1 in n goroutines, each meant to add its own i, and
// returns the sum and the number of goroutines started.
func Sum(n int) (sum, started int) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := 0; i < n; i++ { // race
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			sum += i // race
			mu.Unlock()
		}()
		started++
	}
	wg.Wait()
	return sum, started
}
