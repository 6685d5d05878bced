package counter

import (
	"sync"
	"testing"
)

// TestConcurrentInc increments one counter twice from each of three
// goroutines. The final value depends on lost updates, so it is only
// logged.
func TestConcurrentInc(t *testing.T) {
	var c Counter
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Inc()
			c.Inc()
		}()
	}
	wg.Wait()
	t.Logf("count = %d (6 without lost updates)", c.Value())
}
