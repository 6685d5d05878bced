// Package corpus is a module whose test has a committed schedule in
// testdata/interleave/TestOpposite/: interleave test replays it before exploring.
package corpus

import (
	"sync"
	"testing"
)

// TestOpposite takes two locks in opposite orders: a deadlock when each goroutine takes its
// first lock before the other takes its second.
func TestOpposite(t *testing.T) {
	var a, b sync.Mutex
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		a.Lock()
		b.Lock()
		b.Unlock()
		a.Unlock()
	}()
	go func() {
		defer wg.Done()
		b.Lock()
		a.Lock()
		a.Unlock()
		b.Unlock()
	}()
	wg.Wait()
}
