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

// SumRangeCaptured adds xs in goroutines that capture the range variable (the bug: in a file
// at go1.21, v is one variable, and each iteration's write of it races with the goroutines'
// reads; go test -race reports it).
func SumRangeCaptured(xs []int) int64 {
	var sum atomic.Int64
	var wg sync.WaitGroup
	for _, v := range xs {
		wg.Add(1)
		go func() {
			sum.Add(int64(v))
			wg.Done()
		}()
	}
	wg.Wait()
	return sum.Load()
}

// SumRange passes each goroutine its own value (the fix).
func SumRange(xs []int) int64 {
	var sum atomic.Int64
	var wg sync.WaitGroup
	for _, v := range xs {
		wg.Add(1)
		go func(v int) {
			sum.Add(int64(v))
			wg.Done()
		}(v)
	}
	wg.Wait()
	return sum.Load()
}
