// Package sleeps holds programs whose correctness rests on time or on scheduling, which Go
// does not promise: a sleep that should have let a goroutine run (issue 47: a sleep orders
// nothing), and a condition variable signalled before its waiter reaches Wait (bounded
// unfairness: Go may leave a new goroutine unscheduled while another runs a long loop).
package sleeps

import (
	"sync"
	"time"
)

// Collector counts the items its workers handled.
type Collector struct {
	wg sync.WaitGroup
	mu sync.Mutex
	n  int
}

// Start starts a worker that handles one item. The worker calls wg.Add itself: Wait finds
// it only if the worker has run by then.
func (c *Collector) Start() {
	go func() {
		c.wg.Add(1) // BUG: belongs before the go statement
		defer c.wg.Done()
		c.mu.Lock()
		c.n++
		c.mu.Unlock()
	}()
}

// StartCounted is Start with Add where it belongs.
func (c *Collector) StartCounted() {
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		time.Sleep(time.Millisecond)
		c.mu.Lock()
		c.n++
		c.mu.Unlock()
	}()
}

// Wait waits for the workers and returns the items handled.
func (c *Collector) Wait() int {
	c.wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// Handled returns the items handled so far, without waiting.
func (c *Collector) Handled() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// Notifier wakes one waiter per signal.
type Notifier struct {
	mu    sync.Mutex
	cond  *sync.Cond
	ready bool
}

// NewNotifier returns a notifier.
func NewNotifier() *Notifier {
	n := &Notifier{}
	n.cond = sync.NewCond(&n.mu)
	return n
}

// WaitOnce waits for one signal, with no condition: a signal sent before it waits is lost.
func (n *Notifier) WaitOnce() {
	n.mu.Lock()
	n.cond.Wait() // BUG: no predicate
	n.mu.Unlock()
}

// WaitReady waits until Ready was called.
func (n *Notifier) WaitReady() {
	n.mu.Lock()
	for !n.ready {
		n.cond.Wait()
	}
	n.mu.Unlock()
}

// Ready records that the waiters may go on, then signals.
func (n *Notifier) Ready() {
	n.mu.Lock()
	n.ready = true
	n.mu.Unlock()
}

// Signal wakes one waiter, if any.
func (n *Notifier) Signal() { n.cond.Signal() }
