package constructs

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A helper file: testing appears in signatures and in calls of testing.TB's methods, which
// the rewrite sends through the harness, and every construct family appears in helpers, so
// that the file still compiles once all of them are rewritten.

func lockedAdd(t testing.TB, mu *sync.Mutex, n *int) {
	t.Helper()
	mu.Lock()
	*n++
	mu.Unlock()
}

func exchange(tb testing.TB, ch chan int, v int) int {
	go func() { ch <- v }()
	select {
	case got := <-ch:
		return got
	case <-time.After(time.Second):
		tb.Fatal("no value")
		return 0
	}
}

func counted(_ testing.TB, c *atomic.Int64, ctx context.Context) int64 {
	if ctx.Err() != nil {
		return -1
	}
	return c.Add(1)
}

func TestHelperInNonTestFile(t *testing.T) {
	Equal(t, 2+2, 4)
	say("helper in a non-test file")
}
