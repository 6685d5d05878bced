// Package long is a test with a long schedule (about 10,000 steps) for the debug adapter's
// latency benchmark. Every schedule fails at its end, so that exploring stops at once with a
// schedule to step through.
package long

import (
	"sync"
	"testing"
)

func TestLong(t *testing.T) {
	var mu sync.Mutex
	total := 0
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 1250; i++ {
				mu.Lock()
				total += w + 1
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	t.Fatalf("the end: total = %d", total)
}
