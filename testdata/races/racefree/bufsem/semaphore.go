// Package bufsem is a counting semaphore built on a buffered channel.
//
// Acquire sends into a channel of capacity C and Release receives from it,
// so at most C holders are inside at once. The Go memory model says the
// k-th receive on a channel of capacity C happens before the (k+C)-th send
// on it completes: a holder's Release therefore happens before the Acquire
// that took its place returns. With C = 1 the semaphore is a mutex, and
// the Tally below uses it to protect a shared counter; nothing else orders
// the increments.
//
// The tokens are ints rather than struct{}: for channels of zero-size
// elements the race runtime accumulates every operation in one
// synchronization object, which would add happens-before edges that the
// memory model does not give; with ints it tracks each buffer slot like the
// memory model does.
package bufsem

// Semaphore admits at most a fixed number of holders at once.
type Semaphore struct {
	slots chan int
}

// New returns a semaphore admitting at most n holders.
func New(n int) *Semaphore {
	return &Semaphore{slots: make(chan int, n)}
}

// Acquire waits until fewer than n holders are inside, and enters.
func (s *Semaphore) Acquire() {
	s.slots <- 1
}

// Release leaves.
func (s *Semaphore) Release() {
	<-s.slots
}

// Tally counts events under a semaphore of capacity 1.
type Tally struct {
	sem *Semaphore
	n   int
}

// NewTally returns a zero tally.
func NewTally() *Tally {
	return &Tally{sem: New(1)}
}

// Add adds one to the tally.
func (t *Tally) Add() {
	t.sem.Acquire()
	t.n++
	t.sem.Release()
}

// Value returns the tally.
func (t *Tally) Value() int {
	t.sem.Acquire()
	defer t.sem.Release()
	return t.n
}
