// Package httpserver is an HTTP hit counter served by net/http: its handler counts the
// requests it answered. Counter's handler reads and writes its count without a lock, so two
// requests served at once may lose one (a lost update across two concurrent requests);
// LockedCounter's does not.
package httpserver

import (
	"fmt"
	"net/http"
	"sync"
)

// Counter counts the requests it answered, without a lock.
type Counter struct {
	hits int
}

func (c *Counter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := c.hits
	c.hits = n + 1
	fmt.Fprintf(w, "%d", n+1)
}

// Hits is the number of requests answered.
func (c *Counter) Hits() int { return c.hits }

// LockedCounter counts the requests it answered, under a lock.
type LockedCounter struct {
	mu   sync.Mutex
	hits int
}

func (c *LockedCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.hits++
	n := c.hits
	c.mu.Unlock()
	fmt.Fprintf(w, "%d", n)
}

// Hits is the number of requests answered.
func (c *LockedCounter) Hits() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits
}
