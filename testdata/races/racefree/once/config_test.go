package once

import (
	"sync"
	"testing"
)

// TestConcurrentGet reads settings from three goroutines on a fresh loader.
func TestConcurrentGet(t *testing.T) {
	var l Loader
	var wg sync.WaitGroup
	for _, key := range []string{"region", "tier", "region"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, loads := l.Get(key)
			if v == "" || loads != 1 {
				t.Errorf("Get(%q) = %q after %d loads, want a value after 1", key, v, loads)
			}
		}()
	}
	wg.Wait()
}
