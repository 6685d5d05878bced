package engine

import (
	"sync"
	"unsafe"
)

// onceState is the shadow of a sync.Once: whether f has returned (done), and whether a call
// is running f (package sync's internal mutex is held).
type onceState struct {
	done    bool
	running bool
	waiters waitq
	// returned is the race detector's clock of the return of f, which happens before every
	// Do returns.
	returned vclock
}

func (s *onceState) ready(*goroutine) bool { return s.done || !s.running }

func onceOf(e *Exec, o *sync.Once) *onceState {
	return lookup(e, uintptr(unsafe.Pointer(o)), shadowOnce, func() *onceState { return &onceState{} })
}

// OnceDo is o.Do(f). The call is one step: it returns at once when f has returned, blocks
// while another call runs f, and otherwise runs f. As in Go, a call that runs f considers f
// returned even when f panics (the panic goes on) or calls runtime.Goexit, and a call of
// o.Do from f deadlocks.
func OnceDo(o *sync.Once, f func(), pos Pos) {
	e, g := current(pos)
	if g == nil {
		o.Do(f)
		return
	}
	s := onceOf(e, o)
	e.pointWait(g, OpOnce, uintptr(unsafe.Pointer(o)), pos, s, &s.waiters)
	nilCheck(unsafe.Pointer(o))
	if s.done {
		e.raceAcquire(g, s.returned)
		return
	}
	s.running = true
	e.notify(&s.waiters) // the other callers now wait for f
	defer func() {
		s.done = true
		s.running = false
		e.raceRelease(g, &s.returned)
		e.notify(&s.waiters)
	}()
	f()
}

// OnceFunc is sync.OnceFunc(f): a function that calls f only once. If f panics, the
// returned function panics with the same value on every call. pos is the position of the
// OnceFunc call; the returned function's calls are scheduling points there.
//
// Unlike package sync's, the returned function keeps f: like any sync.Once, its state is
// per execution, so a function made outside the test body calls f once per execution.
func OnceFunc(f func(), pos Pos) func() {
	g := OnceValues(func() (struct{}, struct{}) { f(); return struct{}{}, struct{}{} }, pos)
	return func() { g() }
}

// OnceValue is sync.OnceValue(f): a function that calls f only once and returns its value.
// If f panics, the returned function panics with the same value on every call.
func OnceValue[T any](f func() T, pos Pos) func() T {
	g := OnceValues(func() (T, struct{}) { return f(), struct{}{} }, pos)
	return func() T {
		v, _ := g()
		return v
	}
}

// OnceValues is sync.OnceValues(f): a function that calls f only once and returns its
// values. If f panics, the returned function panics with the same value on every call.
func OnceValues[T1, T2 any](f func() (T1, T2), pos Pos) func() (T1, T2) {
	var (
		once  sync.Once
		valid bool
		p     any
		r1    T1
		r2    T2
	)
	call := func() {
		valid = false
		defer func() {
			p = recover()
			if !valid {
				panic(p)
			}
		}()
		r1, r2 = f()
		valid = true
	}
	return func() (T1, T2) {
		OnceDo(&once, call, pos)
		if !valid {
			panic(p)
		}
		return r1, r2
	}
}
