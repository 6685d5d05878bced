package rwmutex

import (
	"sync"
	"testing"
)

// TestReadersAndWriter runs one writer that stores two keys and two
// readers that look one of them up. A reader sees the key either not yet
// stored (version 0 or 1) or stored.
func TestReadersAndWriter(t *testing.T) {
	c := NewCache()
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		c.Put("host", "example.com")
		c.Put("port", "443")
	}()
	for i := 0; i < 2; i++ {
		go func() {
			defer wg.Done()
			v, version := c.Get("port")
			if v == "" && version > 1 || v != "" && (v != "443" || version != 2) {
				t.Errorf("Get(port) = %q at version %d", v, version)
			}
		}()
	}
	wg.Wait()
	if v, version := c.Get("host"); v != "example.com" || version != 2 {
		t.Errorf("Get(host) = %q at version %d, want example.com at version 2", v, version)
	}
}
