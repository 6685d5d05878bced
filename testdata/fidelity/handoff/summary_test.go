package handoff

import (
	"sync"
	"testing"
)

// TestFlushWhileObserving: two goroutines observe and flush at once. The mutex each Flush
// locks is unlocked by loop once it has summed the batch: no deadlock, and every value is
// summed.
func TestFlushWhileObserving(t *testing.T) {
	const batch = 1500
	s := New()
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2 {
				for j := range batch {
					s.Observe(int64(g*2*batch + i*batch + j))
				}
				s.Flush()
			}
		}()
	}
	wg.Wait()
	const n = 4 * batch
	if sum := s.Close(); sum != n*(n-1)/2 {
		t.Errorf("sum = %d, want %d", sum, n*(n-1)/2)
	}
}
