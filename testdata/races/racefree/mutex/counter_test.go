package mutex

import (
	"sync"
	"testing"
)

// TestConcurrentInc increments one counter twice from each of three
// goroutines.
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
	if got := c.Value(); got != 6 {
		t.Errorf("count = %d, want 6", got)
	}
}
