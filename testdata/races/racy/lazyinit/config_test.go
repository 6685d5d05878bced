package lazyinit

import (
	"sync"
	"testing"
)

// TestConcurrentGet gets the configuration from two goroutines on a fresh
// loader. Whether both got the same *Config depends on the race, so it is
// only logged.
func TestConcurrentGet(t *testing.T) {
	var l Loader
	var wg sync.WaitGroup
	got := make([]*Config, 2)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = l.Get()
		}()
	}
	wg.Wait()
	for i, cfg := range got {
		if cfg == nil {
			t.Fatalf("goroutine %d got a nil configuration", i)
		}
	}
	t.Logf("loaded once: %v", got[0] == got[1])
}
