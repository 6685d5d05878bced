package main

import (
	"strings"
	"testing"
)

// afterFuncTests wait for a context.AfterFunc callback (correct), and assume it ran right after
// cancel and a yield (a bug: it runs in a goroutine of its own, which need not run first).
const afterFuncTests = `package m

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestWaitsForCallback(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() { close(done) })
	defer stop()
	go cancel()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatal("the callback did not run")
	}
}

func TestAssumesCallbackRan(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Bool
	context.AfterFunc(ctx, func() { ran.Store(true) })
	cancel()
	runtime.Gosched()
	if !ran.Load() {
		t.Fatal("the callback has not run yet")
	}
}
`

// TestContextAfterFuncEndToEnd: context.AfterFunc's callback runs in a goroutine the engine
// controls: a test that waits for it passes every schedule (it was a false bug: the context
// package's own goroutine ran it unseen, and the virtual clock fired the timeout at once), and
// a test that assumes it ran after a runtime.Gosched fails in the schedule where it runs late.
func TestContextAfterFuncEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := writeModule(t, map[string]string{"m_test.go": afterFuncTests})
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-schedules", "1000", "-run", "^TestWaitsForCallback$", ".")
	if code != 0 {
		t.Fatalf("the test that waits for the callback: exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = interleaveIn(t, dir, nil, "test", "-schedules", "1000", "-minimize", "0", "-run", "^TestAssumesCallbackRan$", ".")
	if code != 1 || !strings.Contains(out, "the callback has not run yet") {
		t.Fatalf("the test that assumes the callback ran: exit %d, want 1 with its failure\n%s\n%s", code, out, errOut)
	}
}
