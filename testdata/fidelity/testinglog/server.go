// Package testinglog is issue 15's item 6: a t.Log from a goroutine after its test has
// returned panics in Go ("Log in goroutine after TestX has completed"), and so under
// Interleave.
package testinglog

// Server serves until closed and logs when it stops.
type Server struct {
	quit, done chan struct{}
}

// Start starts the server; logf is where it logs.
func Start(logf func(format string, args ...any)) *Server {
	s := &Server{quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		<-s.quit
		logf("server stopped")
		close(s.done)
	}()
	return s
}

// CloseNoWait asks the server to stop and returns at once (the bug: it may log after the
// caller is gone).
func (s *Server) CloseNoWait() { close(s.quit) }

// Close asks the server to stop and waits until it has (the fix).
func (s *Server) Close() {
	close(s.quit)
	<-s.done
}

// Announce starts a worker that logs as it starts, before anything else (the bug: the caller
// may return before the worker has run at all).
func Announce(logf func(format string, args ...any)) {
	go func() {
		logf("worker started")
	}()
}
