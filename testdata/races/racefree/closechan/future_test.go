package closechan

import (
	"sync"
	"testing"
)

// TestGetBeforeAndAfterSet reads a future from two goroutines while a third
// sets it.
func TestGetBeforeAndAfterSet(t *testing.T) {
	f := NewFuture()
	var wg sync.WaitGroup
	wg.Add(3)
	for i := 0; i < 2; i++ {
		go func() {
			defer wg.Done()
			if got := f.Get(); got != "ready" {
				t.Errorf("Get() = %q, want ready", got)
			}
		}()
	}
	go func() {
		defer wg.Done()
		f.Set("ready")
	}()
	wg.Wait()
}
