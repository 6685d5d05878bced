package mapwrite

import (
	"sync"
	"testing"
)

// TestConcurrentSet sets two different keys, one from a new goroutine and
// one from the test's goroutine.
func TestConcurrentSet(t *testing.T) {
	r := NewRegistry()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.Set("alpha", 1)
	}()
	r.Set("beta", 2)
	wg.Wait()
	t.Logf("%d keys", r.Len())
}
