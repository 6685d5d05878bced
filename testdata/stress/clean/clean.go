// Package clean is a correct counterpart of the other examples: a counter whose increments
// are guarded by a mutex, with tests that run alone and together. interleave stress must run
// it for its whole budget and report nothing.
package clean

import "sync"

// Counter counts.
type Counter struct {
	mu sync.Mutex
	n  int
}

// Add adds d.
func (c *Counter) Add(d int) {
	c.mu.Lock()
	c.n += d
	c.mu.Unlock()
}

// Value returns the count.
func (c *Counter) Value() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// Shared is a package-level counter both tests use.
var Shared Counter
