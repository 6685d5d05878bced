// Package semaphore bounds the number of concurrent calls with a channel
// of tokens, and wrongly relies on it for mutual exclusion.
//
// NewPool fills a buffered channel with limit slot numbers up front; Do
// acquires a slot by receiving one and releases it by sending it back.
// That is a correct counting semaphore: each receive is ordered after the
// send that put its token there, so with limit 1 (one token) it would be a
// mutex. But the pool is created with limit 2, the number of workers (the
// author confused "buffered, so it serializes" with "capacity 1, so it
// serializes"), and Do updates p.calls inside the "critical section" as if
// only one caller could be there.
//
// Why this is a race under the Go memory model, whatever the timing: both
// workers receive one of the two tokens that NewPool sent. The only
// happens-before edges involving those receives are from NewPool's sends
// (which both workers follow) and from the k-th receive to the completion
// of the (k+2)-th send, and those sends are the releases that come after
// the increments. No edge leads from one worker's increment to the other's,
// so the two increments race in every execution. Calls runs after the
// workers have been joined and is not racy.
//
// The tokens are ints, not struct{}: the race runtime keeps one
// synchronization object for all the slots of a channel whose elements have
// size zero and accumulates every send and receive in it, which orders the
// workers whenever one finishes before the other starts and hides the race
// from go test -race (see runtime.racenotify).
package semaphore

// Pool runs functions with at most limit of them at a time.
type Pool struct {
	slots chan int
	calls int // meant to be guarded by holding a slot
}

// NewPool returns a pool that runs at most limit functions at a time.
func NewPool(limit int) *Pool {
	p := &Pool{slots: make(chan int, limit)}
	for i := 0; i < limit; i++ {
		p.slots <- i
	}
	return p
}

// Do runs f while holding a slot, passing it the slot's number, and counts
// the call.
func (p *Pool) Do(f func(slot int)) {
	slot := <-p.slots // acquire
	p.calls++         // race
	f(slot)
	p.slots <- slot // release
}

// Calls returns the number of calls made.
func (p *Pool) Calls() int {
	return p.calls
}
