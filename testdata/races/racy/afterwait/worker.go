// Package afterwait squares numbers in worker goroutines that are joined
// with a sync.WaitGroup, but a worker stores its result after it has
// called wg.Done.
//
// Done happens before the Wait it releases returns, but only what the
// worker did before Done is ordered before the code after Wait: the store
// of w.Result comes after Done, so it races with the read of w.Result
// after Wait (which may even see the zero value). w.Input is stored
// before Done, so its read after Wait is not a race.
package afterwait

import "sync"

// Worker squares one number.
type Worker struct {
	Input  int
	Result int
}

// Run squares x, storing it in w.Input and the square in w.Result, and
// calls wg.Done.
func (w *Worker) Run(wg *sync.WaitGroup, x int) {
	w.Input = x
	sq := x * x
	wg.Done()     // BUG: the result is not stored yet
	w.Result = sq // race
}
