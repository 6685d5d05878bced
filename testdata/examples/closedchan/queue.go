// Package closedchan implements a closable message queue whose Send races
// with Close.
//
// Send checks the closed flag under the lock, releases the lock, and then
// sends on the channel. Close sets the flag and closes the channel. If
// Close runs between Send's check and its send (check, close, send), Send
// sends on a closed channel and the program panics with "send on closed
// channel". The fix is to hold the lock across the send, or to never close
// a channel that other goroutines may still send on.
package closedchan

import (
	"errors"
	"sync"
)

// ErrClosed is returned by Send after the queue is closed.
var ErrClosed = errors.New("queue closed")

// Queue is a bounded FIFO queue of messages.
type Queue struct {
	mu     sync.Mutex
	closed bool
	ch     chan string
}

// NewQueue returns a queue that buffers up to size messages.
func NewQueue(size int) *Queue {
	return &Queue{ch: make(chan string, size)}
}

// Send adds msg to the queue, blocking while the queue is full.
// It returns ErrClosed if the queue is closed.
func (q *Queue) Send(msg string) error {
	q.mu.Lock()
	closed := q.closed
	q.mu.Unlock()
	if closed {
		return ErrClosed
	}
	// BUG: Close may run right here, between the check and the send.
	q.ch <- msg
	return nil
}

// Messages returns the channel of queued messages; it is closed by Close.
func (q *Queue) Messages() <-chan string {
	return q.ch
}

// Close closes the queue. Messages already queued can still be received.
func (q *Queue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.closed {
		q.closed = true
		close(q.ch)
	}
}
