// Package waitgroup computes results in worker goroutines and joins them
// with a sync.WaitGroup.
//
// Each worker writes its own element of the results slice and then calls
// Done; Done happens before the Wait it releases returns, so the reads of
// the results after Wait are ordered after the writes by the WaitGroup
// alone.
package waitgroup

import "sync"

// Squares returns the squares of xs, each computed in its own goroutine.
func Squares(xs []int) []int {
	results := make([]int, len(xs))
	var wg sync.WaitGroup
	for i, x := range xs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = x * x
		}()
	}
	wg.Wait()
	return results
}
