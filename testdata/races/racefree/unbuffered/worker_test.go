package unbuffered

import (
	"sync"
	"testing"
)

// TestHandoff sends two jobs to a worker and reads each job's result once
// the following send (the next job, then nil) has completed.
func TestHandoff(t *testing.T) {
	jobs := make(chan *Job)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		Worker(jobs)
	}()

	a := &Job{}
	a.In = 3
	jobs <- a // the worker owns a
	b := &Job{}
	b.In = 4
	jobs <- b // the worker has received b, so it is done with a
	if a.Out != 9 {
		t.Errorf("a.Out = %d, want 9", a.Out)
	}
	jobs <- nil // the worker is done with b
	if b.Out != 16 {
		t.Errorf("b.Out = %d, want 16", b.Out)
	}
	wg.Wait()
}
