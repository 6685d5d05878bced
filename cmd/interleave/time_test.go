package main

import (
	"strings"
	"testing"
)

// timeModule holds tests that reported false bugs on real modules because of virtual time: a
// cache's janitor that outlives the test on a ticker (a livelock at the step bound), loops
// bounded by a deadline that never came (time only moved when every goroutine blocked), and
// two readings of time.Now that were equal.
var timeModule = map[string]string{
	"cache.go": `package m

import (
	"sync"
	"time"
)

// Cache is a map whose entries expire, purged by a janitor goroutine that is never stopped,
// as a popular cache library documents.
type Cache struct {
	mu    sync.Mutex
	items map[string]time.Time
}

func New(ttl time.Duration) *Cache {
	c := &Cache{items: map[string]time.Time{}}
	go c.janitor(ttl)
	return c
}

func (c *Cache) janitor(ttl time.Duration) {
	tick := time.NewTicker(ttl)
	for now := range tick.C {
		c.mu.Lock()
		for k, at := range c.items {
			if now.Sub(at) > ttl {
				delete(c.items, k)
			}
		}
		c.mu.Unlock()
	}
}

func (c *Cache) Set(k string) {
	c.mu.Lock()
	c.items[k] = time.Now()
	c.mu.Unlock()
}
`,
	"m_test.go": `package m

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestJanitor(t *testing.T) {
	c := New(time.Millisecond)
	c.Set("a")
}

func TestLoopUntilTimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var mu sync.Mutex
	n := 0
	for ctx.Err() == nil {
		mu.Lock()
		n++
		mu.Unlock()
	}
}

func TestLoopUntilAfterFunc(t *testing.T) {
	var stop atomic.Bool
	time.AfterFunc(time.Second, func() { stop.Store(true) })
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
		}
	}()
	wg.Wait()
}

func TestLoopUntilDeadline(t *testing.T) {
	deadline := time.Now().Add(5 * time.Second)
	ch := make(chan int, 1)
	for time.Now().Before(deadline) {
		ch <- 1
		<-ch
	}
}

func TestElapsed(t *testing.T) {
	start := time.Now()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done() }()
	wg.Wait()
	if elapsed := time.Since(start); elapsed <= 0 {
		t.Fatalf("elapsed %v, want > 0", elapsed)
	}
}
`,
}

// Virtual time gives no false bug: each test above passes, the janitor is a notice naming its
// go statement — a leak only with -strict-leaks.
func TestNoFalseBugsFromTime(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := writeModule(t, timeModule)
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-json", "-schedules", "200", "-minimize", "0", ".")
	if code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, test := range []string{"TestJanitor", "TestLoopUntilTimeout", "TestLoopUntilAfterFunc", "TestLoopUntilDeadline", "TestElapsed"} {
		e := finalEvent(t, out, test)
		if e.Action != "pass" {
			t.Errorf("%s: %s after %d schedules, want pass (bug %+v)", test, e.Action, *e.Schedules, e.Bug)
		}
		if test == "TestJanitor" {
			if !strings.Contains(e.Notice, "went on") || !strings.Contains(e.Notice, "started at cache.go:17") {
				t.Errorf("TestJanitor's notice = %q, want the janitor's go statement (cache.go:17)", e.Notice)
			}
		} else if e.Notice != "" {
			t.Errorf("%s: notice %q, want none", test, e.Notice)
		}
	}

	code, out, errOut = interleaveIn(t, dir, nil, "test", "-json", "-strict-leaks", "-schedules", "20", "-minimize", "0", "-run", "^TestJanitor$", ".")
	if code != 1 {
		t.Fatalf("-strict-leaks: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if e := finalEvent(t, out, "TestJanitor"); e.Bug == nil || e.Bug.Kind != "leak" || !strings.Contains(e.Bug.Message, "cache.go:17") {
		t.Errorf("-strict-leaks: TestJanitor's bug = %+v, want a leak of the janitor started at cache.go:17", e.Bug)
	}
}
