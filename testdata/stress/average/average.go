// Package average computes means with worker goroutines. It is the example of a bug behind
// an input value: Mean divides by the number of values, and an empty input panics. Its test
// draws the number of values with package random, so that interleave stress and interleave
// test both reach the empty input, and a replay or -repro draws it again.
package average

import "sync"

// Mean returns the integer mean of xs, summed by workers goroutines.
func Mean(xs []int, workers int) int {
	var mu sync.Mutex
	var wg sync.WaitGroup
	sum := 0
	per := (len(xs) + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := min(w*per, len(xs)), min((w+1)*per, len(xs))
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := 0
			for _, x := range xs[lo:hi] {
				s += x
			}
			mu.Lock()
			sum += s
			mu.Unlock()
		}()
	}
	wg.Wait()
	return sum / len(xs)
}
