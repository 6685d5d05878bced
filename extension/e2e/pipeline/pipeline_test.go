// Package pipeline is the end-to-end test's long schedule: three workers sum 60 jobs under a
// mutex, and the test waits for them without closing the jobs channel, so every schedule ends
// in a deadlock after a few hundred steps (extension/e2e/e2e.mjs, the timeline).
package pipeline

import (
	"sync"
	"testing"
)

type total struct {
	mu  sync.Mutex
	sum int
}

func TestPipeline(t *testing.T) {
	var tot total
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				tot.mu.Lock()
				tot.sum += j
				tot.mu.Unlock()
			}
		}()
	}
	for i := 0; i < 60; i++ {
		jobs <- i
	}
	// BUG: jobs is never closed: the workers wait for more, and Wait waits for them.
	wg.Wait()
	if tot.sum != 1770 {
		t.Errorf("sum %d, want 1770", tot.sum)
	}
}
