// Package wgadd implements a task runner that calls WaitGroup.Add inside
// the goroutine it is meant to track.
//
// Go starts a task in a goroutine and returns once that goroutine has
// signalled that it is running; the goroutine signals first and calls
// wg.Add(1) after. Wait can therefore run between the signal and the Add:
// it sees a counter of zero (or only the other tasks) and returns while
// the task has not run yet, so the caller reads results that are not
// there. Natively the goroutine almost always reaches Add before the
// caller resumes, which hides the bug. The fix is to call wg.Add(1) in Go,
// before the go statement.
package wgadd

import "sync"

// Runner runs tasks concurrently and waits for them.
type Runner struct {
	wg sync.WaitGroup
}

// Go runs task in a new goroutine. It returns once the goroutine has
// started.
func (r *Runner) Go(task func()) {
	started := make(chan struct{})
	go func() {
		close(started)
		// BUG: Wait may already have been called (and returned) by now.
		r.wg.Add(1)
		defer r.wg.Done()
		task()
	}()
	<-started
}

// Wait blocks until all tasks started by Go have returned.
func (r *Runner) Wait() {
	r.wg.Wait()
}
