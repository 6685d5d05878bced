// Package leak checks that go.uber.org/goleak, which reads every goroutine's traceback, sees
// the test's goroutines only when interleave explores the tests (see goleak_test.go in
// cmd/interleave): the correct tests pass in every schedule, the leak is reported.
package leak

import (
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain checks, after the tests, that none left a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestWorkers waits for its workers: no leak.
func TestWorkers(t *testing.T) {
	defer goleak.VerifyNone(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	n := 0
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			n++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if n != 3 {
		t.Fatalf("n = %d, want 3", n)
	}
}

// TestFinishesSoon does not wait for its goroutine, which ends shortly after: goleak retries
// until it has, as under go test.
func TestFinishesSoon(t *testing.T) {
	defer goleak.VerifyNone(t)
	done := make(chan struct{})
	go func() {
		time.Sleep(time.Millisecond)
		close(done)
	}()
}

// TestTimers leaves timers pending and an AfterFunc that has fired: no goroutine of its own.
func TestTimers(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	fired := make(chan struct{})
	time.AfterFunc(time.Nanosecond, func() { close(fired) })
	<-fired
	time.AfterFunc(time.Hour, func() {})
	_ = time.NewTimer(time.Hour)
}

// TestLeak leaves a goroutine blocked forever: goleak reports it.
func TestLeak(t *testing.T) {
	defer goleak.VerifyNone(t)
	ch := make(chan int)
	go func() { <-ch }()
}
