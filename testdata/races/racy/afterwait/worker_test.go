package afterwait

import (
	"sync"
	"testing"
)

// TestRunWait runs two workers, waits for them and reads their inputs and
// results. A result may not be there yet, so results are only logged.
func TestRunWait(t *testing.T) {
	workers := make([]Worker, 2)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go workers[i].Run(&wg, i+2)
	}
	wg.Wait()
	for i := range workers {
		w := &workers[i]
		if w.Input != i+2 {
			t.Errorf("worker %d: Input = %d, want %d", i, w.Input, i+2)
		}
		t.Logf("worker %d: %d squared = %d", i, w.Input, w.Result) // race
	}
}
