// Package mutex counts events under a sync.Mutex.
//
// Every access to c.n is made while holding c.mu, so an Unlock by one
// goroutine happens before the next Lock by another returns, and the
// increments (and the final read) are ordered by the mutex alone.
package mutex

import "sync"

// Counter counts events; it is safe for concurrent use.
type Counter struct {
	mu sync.Mutex
	n  int
}

// Inc adds one to the count.
func (c *Counter) Inc() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

// Value returns the count.
func (c *Counter) Value() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
