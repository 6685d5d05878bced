package cond

import (
	"sync"
	"testing"
)

// TestProducerConsumers puts two orders from one goroutine while two
// consumers each take one.
func TestProducerConsumers(t *testing.T) {
	q := NewQueue()
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		for id := 1; id <= 2; id++ {
			o := new(Order)
			o.ID = id
			o.Qty = 10 * id
			q.Put(o)
		}
	}()
	for i := 0; i < 2; i++ {
		go func() {
			defer wg.Done()
			o := q.Get()
			if o.Qty != 10*o.ID || o.ID < 1 || o.ID > 2 {
				t.Errorf("Get() = %+v", *o)
			}
		}()
	}
	wg.Wait()
	if n := q.Len(); n != 0 {
		t.Errorf("Len() = %d after two Puts and two Gets, want 0", n)
	}
}
