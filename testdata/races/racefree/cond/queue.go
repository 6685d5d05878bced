// Package cond is a blocking queue built on sync.Cond and a sync.Mutex.
//
// Put appends under the mutex and signals the condition; Get waits on the
// condition until the queue is non-empty and takes the first item. Wait
// unlocks the mutex while it sleeps and locks it again before it returns,
// so every access to q.items is made holding q.mu, and the producer and
// the consumers are ordered by the mutex that the Cond wraps: an Unlock
// (including the one inside Wait) happens before the next Lock (including
// the one inside Wait) returns. Items are *Order values that the producer
// fills before Put, so the consumers' reads through them are ordered by
// the same edges.
package cond

import "sync"

// Order is an item in the queue.
type Order struct {
	ID  int
	Qty int
}

// Queue is an unbounded FIFO queue; it is safe for concurrent use.
type Queue struct {
	mu    sync.Mutex
	cond  *sync.Cond
	items []*Order
}

// NewQueue returns an empty queue.
func NewQueue() *Queue {
	q := &Queue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// Put adds an order to the queue.
func (q *Queue) Put(o *Order) {
	q.mu.Lock()
	q.items = append(q.items, o)
	q.mu.Unlock()
	q.cond.Signal()
}

// Get waits until the queue is not empty and removes its first order.
func (q *Queue) Get() *Order {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 {
		q.cond.Wait()
	}
	o := q.items[0]
	q.items = q.items[1:]
	return o
}

// Len returns the number of orders in the queue.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}
