package leakrule

import (
	"testing"
	"time"
)

// The deadline is shorter than the work: once the work ends, the worker is blocked on its
// send for good, whether it takes 200ms or 2s (a notice, before the one leak rule).
func TestDeadlineBefore200msOfWork(t *testing.T) {
	if _, ok := Fetch(200*time.Millisecond, 100*time.Millisecond, 0); ok {
		t.Fatal("the result came before the deadline")
	}
}

func TestDeadlineBefore2sOfWork(t *testing.T) {
	if _, ok := Fetch(2*time.Second, 100*time.Millisecond, 0); ok {
		t.Fatal("the result came before the deadline")
	}
}

// The fix: the result channel has room for the result.
func TestDeadlineBufferedResult(t *testing.T) {
	if _, ok := Fetch(2*time.Second, 100*time.Millisecond, 1); ok {
		t.Fatal("the result came before the deadline")
	}
}

// The test never closes the cache: its worker, idle in its loop, is a notice (go test passes
// this; goleak fails it).
func TestCacheNeverClosed(t *testing.T) {
	c := NewCache()
	if got := c.Get(); got != 1 {
		t.Fatalf("Get = %d, want 1", got)
	}
}

func TestCacheClosed(t *testing.T) {
	c := NewCache()
	defer c.Close()
	if got := c.Get(); got != 1 {
		t.Fatalf("Get = %d, want 1", got)
	}
}
