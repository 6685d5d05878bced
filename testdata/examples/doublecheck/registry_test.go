package doublecheck

import (
	"sync"
	"testing"
)

// TestConcurrentLookup looks codecs up from two goroutines on a fresh
// registry and checks that both find them.
func TestConcurrentLookup(t *testing.T) {
	var r Registry
	var wg sync.WaitGroup
	for _, name := range []string{"json", "xml"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ok := r.Lookup(name); !ok {
				t.Errorf("Lookup(%q) found nothing", name)
			}
		}()
	}
	wg.Wait()
}
