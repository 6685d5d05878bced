// Package handoff is a summary whose flush locks the summary in the caller and unlocks it in
// the goroutine that sums the batch, as a metrics library's summary flushes: Go lets one
// goroutine Lock a sync.Mutex and another Unlock it.
package handoff

import (
	"sync"
	"sync/atomic"
)

// Summary sums the values observed.
type Summary struct {
	mu      sync.Mutex
	vals    []int64
	sum     atomic.Int64
	batches chan []int64
	done    chan struct{}
}

// New returns a summary with its summing goroutine started.
func New() *Summary {
	s := &Summary{batches: make(chan []int64), done: make(chan struct{})}
	go s.loop()
	return s
}

// loop sums each batch it is handed and unlocks the mutex Flush locked.
func (s *Summary) loop() {
	defer close(s.done)
	for b := range s.batches {
		for _, v := range b {
			s.sum.Add(v)
		}
		s.vals = s.vals[:0]
		s.mu.Unlock()
	}
}

// Observe adds v to the current batch.
func (s *Summary) Observe(v int64) {
	s.mu.Lock()
	s.vals = append(s.vals, v)
	s.mu.Unlock()
}

// Flush locks the summary and hands the batch to loop, which unlocks it once summed.
func (s *Summary) Flush() {
	s.mu.Lock()
	s.batches <- s.vals
}

// Close waits for the last flush and stops loop.
func (s *Summary) Close() int64 {
	s.mu.Lock()
	close(s.batches)
	<-s.done
	return s.sum.Load()
}
