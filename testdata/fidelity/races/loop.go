//go:build go1.21

// This file's language version is 1.21: a for loop has one variable for all its iterations.

package races

import (
	"sync"
	"sync/atomic"
)

// SumCaptured adds 0..n-1 in goroutines that capture the loop variable (the bug: each
// iteration's i++ races with the goroutines' reads of i).
func SumCaptured(n int) int64 {
	var sum atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			sum.Add(int64(i))
			wg.Done()
		}()
	}
	wg.Wait()
	return sum.Load()
}

// Sum passes each goroutine its own value (the fix).
func Sum(n int) int64 {
	var sum atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			sum.Add(int64(i))
			wg.Done()
		}(i)
	}
	wg.Wait()
	return sum.Load()
}
