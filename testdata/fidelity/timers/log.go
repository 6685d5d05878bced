// Package timers is issue 15's item 2: a timer can fire while other goroutines are runnable.
// A flusher driven by a ticker runs between any two operations of a busy writer; if time
// passed only when no goroutine could run, the tick would wait until the writer is done and
// a flush between the two halves of a record would never be seen.
package timers

import (
	"sync"
	"time"
)

// Log buffers records of a key and a value; a flusher moves the buffer to its batches on
// every tick.
type Log struct {
	mu      sync.Mutex
	buf     []string
	batches [][]string
}

// WriteTorn appends a record in two critical sections: a flush can take the key without its
// value (the bug).
func (l *Log) WriteTorn(key, value string) {
	l.mu.Lock()
	l.buf = append(l.buf, key)
	l.mu.Unlock()
	l.mu.Lock()
	l.buf = append(l.buf, value)
	l.mu.Unlock()
}

// Write appends a record in one critical section (the fix).
func (l *Log) Write(key, value string) {
	l.mu.Lock()
	l.buf = append(l.buf, key, value)
	l.mu.Unlock()
}

func (l *Log) flush() {
	l.mu.Lock()
	if len(l.buf) > 0 {
		l.batches = append(l.batches, l.buf)
		l.buf = nil
	}
	l.mu.Unlock()
}

// Run starts the flusher, calls write n times and stops the flusher; it returns the batches.
func Run(n int, every time.Duration, write func(l *Log, key, value string)) [][]string {
	l := &Log{}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				l.flush()
			case <-stop:
				l.flush()
				return
			}
		}
	}()
	for i := 0; i < n; i++ {
		write(l, "k", "v")
	}
	close(stop)
	<-done
	return l.batches
}
