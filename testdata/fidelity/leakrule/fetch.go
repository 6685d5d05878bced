// Package leakrule holds the programs of issue 47's leak rule: a deadline shorter than the
// work, which leaves the worker blocked for good on its send whatever the length of the work,
// and a cache whose worker a test never stops.
package leakrule

import "time"

// Fetch waits up to timeout for the result of work that takes work; the result channel has
// room results. With no room, a worker that ends after the deadline is blocked on its send
// for good (the bug); with room for the result, it ends (the fix).
func Fetch(work, timeout time.Duration, room int) (int, bool) {
	c := make(chan int, room)
	go func() {
		time.Sleep(work)
		c <- 42
	}()
	select {
	case v := <-c:
		return v, true
	case <-time.After(timeout):
		return 0, false
	}
}

// Cache answers lookups from a worker goroutine until it is closed.
type Cache struct {
	reqs chan chan int
	stop chan struct{}
}

// NewCache starts the cache's worker.
func NewCache() *Cache {
	c := &Cache{reqs: make(chan chan int), stop: make(chan struct{})}
	go func() {
		n := 0
		for {
			select {
			case r := <-c.reqs:
				n++
				r <- n
			case <-c.stop:
				return
			}
		}
	}()
	return c
}

// Get asks the worker for the next number.
func (c *Cache) Get() int {
	r := make(chan int)
	c.reqs <- r
	return <-r
}

// Close stops the worker.
func (c *Cache) Close() { close(c.stop) }
