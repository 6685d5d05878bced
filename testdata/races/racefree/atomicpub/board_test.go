package atomicpub

import (
	"sync"
	"testing"
)

// TestPublish publishes a board and a snapshot from one goroutine while
// two others read them. A reader may come too early and find nothing, but
// whatever it finds must be complete.
func TestPublish(t *testing.T) {
	var b Board
	var f Feed
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		b.Publish("a", "b")
		f.Publish(1, 10, 20, 30)
	}()
	for i := 0; i < 2; i++ {
		go func() {
			defer wg.Done()
			if items, total, ok := b.Read(); ok && (total != 2 || len(items) != 2 || items[1] != "b") {
				t.Errorf("Read() = %q, %d", items, total)
			}
			if s := f.Current(); s != nil && (s.Seq != 1 || len(s.Readings) != 3 || s.Readings[2] != 30) {
				t.Errorf("Current() = %+v", *s)
			}
		}()
	}
	wg.Wait()
}
