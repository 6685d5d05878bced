// Package longrun is the other half of issue 15's item 7: a correct test that simply runs long
// (200,000 Cond.Signal calls, several hundred thousand scheduling steps) is not a livelock.
package longrun

import "sync"

// Handoff passes n tokens from a producer to a consumer through a condition variable and
// returns the number the consumer took.
func Handoff(n int) int {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	pending, taken := 0, 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		mu.Lock()
		defer mu.Unlock()
		for taken < n {
			for pending == 0 {
				cond.Wait()
			}
			taken += pending
			pending = 0
		}
	}()
	for i := 0; i < n; i++ {
		mu.Lock()
		pending++
		cond.Signal()
		mu.Unlock()
	}
	<-done
	return taken
}
