package sleeps

import (
	"sync"
	"testing"
	"time"
)

// A sleep is no handshake: on a loaded machine the worker may not have run when the test
// wakes, and Wait returns before its Add.
func TestWaitAfterSleep(t *testing.T) {
	var c Collector
	c.Start()
	time.Sleep(time.Millisecond)
	if got := c.Wait(); got != 1 {
		t.Fatalf("Wait returned with %d items handled, want 1", got)
	}
}

// The same with a check after the sleep.
func TestCheckAfterSleep(t *testing.T) {
	var c Collector
	c.Start()
	time.Sleep(time.Millisecond)
	if got := c.Handled(); got != 1 {
		t.Fatalf("%d items handled after the sleep, want 1", got)
	}
}

// The fix: Add before the go statement; the sleeps are only sleeps.
func TestWaitCounted(t *testing.T) {
	var c Collector
	c.StartCounted()
	time.Sleep(time.Millisecond)
	if got := c.Wait(); got != 1 {
		t.Fatalf("Wait returned with %d items handled, want 1", got)
	}
}

// Ten thousand signals take a few hundred microseconds, inside the 10ms Go may leave the new
// waiter unscheduled: every one is sent before the waiter waits, and it waits for good.
func TestSignalsBeforeWait(t *testing.T) {
	n := NewNotifier()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		n.WaitOnce()
	}()
	for range 10_000 {
		n.Signal()
	}
	wg.Wait()
}

// The fix: the waiter waits for a condition set before the signals.
func TestSignalsAfterReady(t *testing.T) {
	n := NewNotifier()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		n.WaitReady()
	}()
	n.Ready()
	for range 10_000 {
		n.Signal()
	}
	wg.Wait()
}
