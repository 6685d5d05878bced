package engine_test

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
)

// TestWaitGroupWaitsForAll: Wait returns only after every task is done, in every schedule;
// without the Wait, random exploration finds the missing increments.
func TestWaitGroupWaitsForAll(t *testing.T) {
	for _, useGo := range []bool{true, false} {
		body := func(wait bool) func(*engine.T) {
			return func(et *engine.T) {
				var wg sync.WaitGroup
				var mu sync.Mutex
				n := 0
				for i := 0; i < 3; i++ {
					task := func() {
						engine.Lock(&mu, "wg.go:1")
						n++
						engine.Unlock(&mu, "wg.go:2")
					}
					if useGo {
						engine.WGGo(&wg, task, "wg.go:3")
						continue
					}
					engine.WGAdd(&wg, 1, "wg.go:4")
					engine.Go(func() {
						defer engine.WGDone(&wg, "wg.go:5")
						task()
					}, "wg.go:6")
				}
				if wait {
					engine.WGWait(&wg, "wg.go:7")
				}
				engine.Lock(&mu, "wg.go:8")
				if n != 3 {
					et.Errorf("n = %d", n)
				}
				engine.Unlock(&mu, "wg.go:9")
				engine.WGWait(&wg, "wg.go:10")
			}
		}
		spNoBug(t, spExplore(t, body(true), randomStrategy(21), 500))
		rep := spExplore(t, body(false), randomStrategy(21), 500)
		if rep.First == nil || rep.First.Bug.Kind != engine.Fail {
			t.Fatalf("go=%v: missing Wait not found: %+v", useGo, rep)
		}
	}
}

// TestWaitGroupMisuse checks the panics of misused WaitGroups, with Go's messages (compared
// with the real WaitGroup's where the misuse is deterministic).
func TestWaitGroupMisuse(t *testing.T) {
	const negative = "sync: negative WaitGroup counter"
	var real sync.WaitGroup
	func() {
		defer func() {
			if r := recover(); r != negative {
				t.Errorf("real WaitGroup: %v", r)
			}
		}()
		real.Add(-1)
	}()

	t.Run("negative", func(t *testing.T) {
		rep := spExplore(t, func(et *engine.T) {
			var wg sync.WaitGroup
			engine.WGAdd(&wg, 2, "n.go:1")
			engine.WGDone(&wg, "n.go:2")
			engine.WGAdd(&wg, -2, "n.go:3")
		}, firstEnabled(), 1)
		b := spWantBug(t, rep, engine.Panic, negative)
		if b.Value != negative {
			t.Errorf("value %#v", b.Value)
		}
	})
	t.Run("extra Done in a goroutine", func(t *testing.T) {
		rep := spExplore(t, func(et *engine.T) {
			var wg sync.WaitGroup
			engine.WGGo(&wg, func() { engine.WGDone(&wg, "d.go:1") }, "d.go:2")
			engine.WGWait(&wg, "d.go:3")
		}, randomStrategy(22), 100)
		b := spWantBug(t, rep, engine.Panic, negative)
		if b.G != 1 {
			t.Errorf("panicked in %v, want G1", b.G)
		}
	})
	t.Run("reused before Wait returned", func(t *testing.T) {
		// G1 waits; G0 releases it and starts a new cycle before G1 runs again: G1's
		// Wait panics when it wakes, as in Go.
		rep := spExplore(t, func(et *engine.T) {
			var wg sync.WaitGroup
			engine.WGAdd(&wg, 1, "u.go:1")
			engine.Go(func() { engine.WGWait(&wg, "u.go:2") }, "u.go:3")
			engine.Gosched("u.go:4") // G1 waits
			engine.WGDone(&wg, "u.go:5")
			engine.WGAdd(&wg, 1, "u.go:6")
			engine.Gosched("u.go:7")
			engine.WGDone(&wg, "u.go:8")
		}, firstEnabled(), 1)
		b := spWantBug(t, rep, engine.Panic, "sync: WaitGroup is reused before previous Wait has returned")
		if b.G != 1 {
			t.Errorf("panicked in %v, want G1", b.G)
		}
	})
	t.Run("reuse race found by random", func(t *testing.T) {
		// Two rounds on one WaitGroup without waiting for the first round's waiter to
		// return: some schedules panic.
		rep := spExplore(t, func(et *engine.T) {
			var wg sync.WaitGroup
			var done sync.WaitGroup
			engine.WGAdd(&wg, 1, "rr.go:1")
			engine.WGGo(&done, func() { engine.WGWait(&wg, "rr.go:2") }, "rr.go:3")
			engine.WGGo(&done, func() { engine.WGWait(&wg, "rr.go:4") }, "rr.go:5")
			engine.WGDone(&wg, "rr.go:6")
			engine.WGAdd(&wg, 1, "rr.go:7")
			engine.WGDone(&wg, "rr.go:8")
			engine.WGWait(&done, "rr.go:9")
		}, randomStrategy(23), 1000)
		spWantBug(t, rep, engine.Panic, "sync: WaitGroup is reused before previous Wait has returned")
	})
}

// TestWaitGroupReleaseAndReuse: when the counter drops to zero every waiter is released at
// once; a new cycle that is back to zero before they wake does not disturb them; a cycle
// started after they all returned works.
func TestWaitGroupReleaseAndReuse(t *testing.T) {
	var returned atomic.Int32
	spNoBug(t, spExplore(t, func(et *engine.T) {
		var wg sync.WaitGroup
		returned.Store(0)
		engine.WGAdd(&wg, 1, "rel.go:1")
		for i := 0; i < 2; i++ {
			engine.Go(func() {
				engine.WGWait(&wg, "rel.go:2")
				engine.AtomicInt32Add(&returned, 1, "rel.go:3")
			}, "rel.go:4")
		}
		engine.Gosched("rel.go:5") // G1 waits
		engine.Gosched("rel.go:6") // G2 waits
		engine.WGDone(&wg, "rel.go:7")
		// A whole cycle before the waiters wake: the state is clear again when they do.
		engine.WGAdd(&wg, 1, "rel.go:8")
		engine.WGDone(&wg, "rel.go:9")
		spAwait(func() bool { return engine.AtomicInt32Load(&returned, "rel.go:10") == 2 }, "rel.go:11")
	}, firstEnabled(), 1))

	// Reuse after every waiter returned, under random schedules.
	spNoBug(t, spExplore(t, func(et *engine.T) {
		var wg, waiters sync.WaitGroup
		n := 0
		for round := 0; round < 2; round++ {
			engine.WGAdd(&wg, 2, "ru.go:1")
			for i := 0; i < 2; i++ {
				engine.Go(func() {
					engine.Write(unsafe.Pointer(&n), "ru.go:2")
					n++
					engine.WGDone(&wg, "ru.go:3")
				}, "ru.go:4")
			}
			engine.WGGo(&waiters, func() { engine.WGWait(&wg, "ru.go:5") }, "ru.go:6")
			engine.WGWait(&wg, "ru.go:7")
			engine.WGWait(&waiters, "ru.go:8") // the other waiter returned too
			engine.Read(unsafe.Pointer(&n), "ru.go:9")
			if n != 2*(round+1) {
				et.Errorf("round %d: n = %d", round, n)
			}
		}
	}, randomStrategy(24), 1000))
}

// TestWaitGroupGo: wg.Go's goroutine calls Done after f returns or calls runtime.Goexit;
// a panic in f is the goroutine's panic.
func TestWaitGroupGo(t *testing.T) {
	spNoBug(t, spExplore(t, func(et *engine.T) {
		var wg sync.WaitGroup
		ran := false
		engine.WGGo(&wg, func() {
			ran = true
			runtime.Goexit()
		}, "go.go:1")
		engine.WGWait(&wg, "go.go:2")
		if !ran {
			et.Errorf("f did not run")
		}
	}, randomStrategy(25), 50))

	rep := spExplore(t, func(et *engine.T) {
		var wg sync.WaitGroup
		engine.WGGo(&wg, func() { panic("boom") }, "go.go:3")
		engine.WGWait(&wg, "go.go:4")
	}, randomStrategy(25), 50)
	b := spWantBug(t, rep, engine.Panic, "boom")
	if b.G != 1 || b.Value != "boom" {
		t.Errorf("bug %v value %#v", b, b.Value)
	}
	// The position is f's panic, not the re-panic inside the engine.
	if !strings.Contains(b.Pos, "waitgroup_test.go:") {
		t.Errorf("bug at %s, want the panic in f", b.Pos)
	}
}

// TestWaitGroupWaitZero: Wait on a zero counter returns at once; Wait with nothing to come
// is a deadlock.
func TestWaitGroupWaitZero(t *testing.T) {
	spNoBug(t, spExplore(t, func(et *engine.T) {
		var wg sync.WaitGroup
		engine.WGWait(&wg, "z.go:1")
		engine.WGAdd(&wg, 1, "z.go:2")
		engine.WGDone(&wg, "z.go:3")
		engine.WGWait(&wg, "z.go:4")
	}, firstEnabled(), 1))
	rep := spExplore(t, func(et *engine.T) {
		var wg sync.WaitGroup
		engine.WGAdd(&wg, 1, "z.go:5")
		engine.WGWait(&wg, "z.go:6")
	}, firstEnabled(), 1)
	spWantBug(t, rep, engine.Deadlock, "all goroutines are blocked:\n\tG0 wg.wait at z.go:6")
}
