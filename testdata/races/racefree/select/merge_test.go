package merge

import (
	"sync"
	"testing"
)

// TestCollect merges a batch from an unbuffered and one from a buffered
// channel.
func TestCollect(t *testing.T) {
	a := make(chan *Batch)
	b := make(chan *Batch, 1)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		Produce(a, "a", 1, 2)
	}()
	go func() {
		defer wg.Done()
		Produce(b, "b", 3, 4, 5)
	}()
	sum, sources := Collect(a, b)
	wg.Wait()
	if sum != 15 || len(sources) != 2 || sources[0] == sources[1] {
		t.Errorf("Collect() = %d, %q; want 15 from a and b", sum, sources)
	}
}
