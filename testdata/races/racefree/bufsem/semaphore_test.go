package bufsem

import (
	"sync"
	"testing"
)

// TestTally adds to one tally twice from each of three goroutines.
func TestTally(t *testing.T) {
	tally := NewTally()
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tally.Add()
			tally.Add()
		}()
	}
	wg.Wait()
	if got := tally.Value(); got != 6 {
		t.Errorf("tally = %d, want 6", got)
	}
}
