package wgadd

import (
	"sync"
	"testing"
)

// TestRunnerWait runs three tasks and checks that all of them have
// finished when Wait returns.
func TestRunnerWait(t *testing.T) {
	var r Runner
	var mu sync.Mutex
	processed := 0
	for range 3 {
		r.Go(func() {
			mu.Lock()
			processed++
			mu.Unlock()
		})
	}
	r.Wait()

	mu.Lock()
	defer mu.Unlock()
	if processed != 3 {
		t.Errorf("after Wait, %d tasks processed, want 3", processed)
	}
}
