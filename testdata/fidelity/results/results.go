// Package results holds the programs of issue 47's named results: a return statement writes
// a function's named results (return v, err) and a bare return reads them, so a goroutine
// that writes one races with the return.
package results

import "errors"

// Start starts a worker that sets started and says it is ready; its bare return reads started
// while the worker may be writing it (the bug).
func Start(ready chan<- struct{}) (started bool) {
	go func() {
		started = true
		ready <- struct{}{}
	}()
	return
}

// StartWait waits for the worker before its bare return (the fix).
func StartWait(ready chan struct{}) (started bool) {
	go func() {
		started = true
		ready <- struct{}{}
	}()
	<-ready
	return
}

// ErrCanceled is the error of a lookup canceled before it ended.
var ErrCanceled = errors.New("lookup canceled")

// Lookup has a worker write the named result val; when it is canceled first, return "",
// ErrCanceled writes val while the worker may be writing it (the bug).
func Lookup(cancel <-chan struct{}) (val string, err error) {
	done := make(chan struct{})
	go func() {
		val = "value"
		close(done)
	}()
	select {
	case <-done:
		return
	case <-cancel:
		return "", ErrCanceled
	}
}

// LookupOwn has the worker send its own value (the fix).
func LookupOwn(cancel <-chan struct{}) (val string, err error) {
	done := make(chan string, 1)
	go func() {
		done <- "value"
	}()
	select {
	case v := <-done:
		return v, nil
	case <-cancel:
		return "", ErrCanceled
	}
}
