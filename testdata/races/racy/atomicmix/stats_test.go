package atomicmix

import (
	"sync"
	"testing"
)

// TestRecordAndPeek records from one goroutine and peeks from another.
func TestRecordAndPeek(t *testing.T) {
	var h Hits
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		h.Record()
	}()
	go func() {
		defer wg.Done()
		t.Logf("peeked %d", h.Peek())
	}()
	wg.Wait()
	t.Logf("total %d", h.Total())
}
