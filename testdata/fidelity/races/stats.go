// Package races is issue 15's item 4: the races Go's detector reports beside the plain ones —
// an atomic and a plain access to the same memory with nothing ordering them; WaitGroup.Add
// with a positive delta concurrent with Wait while the counter is zero; and, in a file whose
// language version is below 1.22, the loop variable that every iteration writes and
// goroutines capture (loop.go).
package races

import (
	"sync"
	"sync/atomic"
)

// Stats counts hits atomically.
type Stats struct {
	hits int64
}

// Hit counts one hit.
func (s *Stats) Hit() { atomic.AddInt64(&s.hits, 1) }

// ResetPlain clears the count with a plain write (the bug: it races with Hit).
func (s *Stats) ResetPlain() { s.hits = 0 }

// Reset clears the count atomically (the fix).
func (s *Stats) Reset() { atomic.StoreInt64(&s.hits, 0) }

// HitWhileReset runs a hit and a reset at once.
func HitWhileReset(s *Stats, reset func()) {
	done := make(chan struct{})
	go func() {
		s.Hit()
		close(done)
	}()
	reset()
	<-done
}

// SpawnAddInside starts a task whose goroutine registers itself with wg: Add may come while
// Wait has already seen the counter at zero (the bug Go's detector reports).
func SpawnAddInside(wg *sync.WaitGroup, task func()) {
	go func() {
		wg.Add(1)
		defer wg.Done()
		task()
	}()
}

// Spawn registers the task before starting it (the fix).
func Spawn(wg *sync.WaitGroup, task func()) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		task()
	}()
}
