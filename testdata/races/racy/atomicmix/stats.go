// Package atomicmix counts hits with an atomic add but reads the count with a
// plain load.
//
// An atomic operation orders nothing for a plain access to the same memory:
// Hits.Record's atomic.AddInt64 and Hits.Peek's plain read of h.n are a data
// race when no synchronization orders them, as Go's race detector reports
// ("Previous write ... sync/atomic.AddInt64"). Total reads h.n after the
// goroutines were joined, which is ordered and not a race.
package atomicmix

import "sync/atomic"

// Hits counts hits.
type Hits struct {
	n int64
}

// Record counts one hit, atomically.
func (h *Hits) Record() {
	atomic.AddInt64(&h.n, 1) // race
}

// Peek reads the count without atomic.LoadInt64: the bug.
func (h *Hits) Peek() int64 {
	return h.n // race
}

// Total is the count once every recorder is done.
func (h *Hits) Total() int64 {
	return h.n
}
