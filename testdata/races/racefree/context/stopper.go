// Package context stops workers with context cancellation and tells them
// why.
//
// Stop writes the reason and then calls cancel; Wait receives from
// ctx.Done() and then reads the reason. Cancelling closes the Done
// channel, and the close happens before a receive that returns because the
// channel is closed, so the read of the reason is ordered after its write
// by the cancellation alone.
package context

import "context"

// Stopper tells goroutines to stop, and why.
type Stopper struct {
	ctx    context.Context
	cancel context.CancelFunc
	reason string
}

// NewStopper returns a stopper that has not been stopped.
func NewStopper() *Stopper {
	ctx, cancel := context.WithCancel(context.Background())
	return &Stopper{ctx: ctx, cancel: cancel}
}

// Stop records the reason and stops the waiting goroutines. It must be
// called once.
func (s *Stopper) Stop(reason string) {
	s.reason = reason
	s.cancel()
}

// Wait waits until Stop is called and returns the reason.
func (s *Stopper) Wait() string {
	<-s.ctx.Done()
	return s.reason
}
