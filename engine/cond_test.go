package engine_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/interleave-dev/interleave/engine"
)

// TestCondSignalFIFOAndBroadcast: three goroutines wait in a known order; each Signal wakes
// exactly one, the longest waiting; Broadcast wakes the rest. Checked under random schedules.
func TestCondSignalFIFOAndBroadcast(t *testing.T) {
	rep := spExplore(t, func(et *engine.T) {
		var mu sync.Mutex
		c := sync.NewCond(&mu)
		var wg sync.WaitGroup
		var waiting, woke []int
		locked := func(f func() bool) func() bool {
			return func() bool {
				engine.Lock(&mu, "f.go:1")
				defer engine.Unlock(&mu, "f.go:2")
				return f()
			}
		}
		for i := 1; i <= 3; i++ {
			engine.WGGo(&wg, func() {
				engine.Lock(&mu, "f.go:3")
				waiting = append(waiting, i) // the order of the tickets
				engine.CondWait(c, "f.go:4")
				woke = append(woke, i)
				engine.Unlock(&mu, "f.go:5")
			}, "f.go:6")
		}
		// Every waiter has its ticket once it has released mu in Wait.
		spAwait(locked(func() bool { return len(waiting) == 3 }), "f.go:7")
		for k := 1; k <= 2; k++ {
			engine.CondSignal(c, "f.go:8")
			spAwait(locked(func() bool { return len(woke) >= k }), "f.go:9")
			for range 10 { // give a second waiter every chance to wake wrongly
				engine.Gosched("f.go:10")
			}
			engine.Lock(&mu, "f.go:11")
			if len(woke) != k || woke[k-1] != waiting[k-1] {
				et.Errorf("after %d signals: woke %v, waiting order %v", k, woke, waiting)
			}
			engine.Unlock(&mu, "f.go:12")
		}
		engine.CondBroadcast(c, "f.go:13")
		engine.WGWait(&wg, "f.go:14")
		if fmt.Sprint(woke) != fmt.Sprint(waiting) {
			et.Errorf("woke %v, waiting order %v", woke, waiting)
		}
	}, randomStrategy(41), 500)
	spNoBug(t, rep)
}

// TestCondLostSignal: a Signal (or Broadcast) only wakes the waits that started before it;
// a later Wait blocks forever.
func TestCondLostSignal(t *testing.T) {
	for _, broadcast := range []bool{false, true} {
		rep := spExplore(t, func(et *engine.T) {
			var mu sync.Mutex
			c := sync.NewCond(&mu)
			if broadcast {
				engine.CondBroadcast(c, "l.go:1")
			} else {
				engine.CondSignal(c, "l.go:2")
			}
			engine.Lock(&mu, "l.go:3")
			engine.CondWait(c, "l.go:4")
			engine.Unlock(&mu, "l.go:5")
		}, firstEnabled(), 1)
		spWantBug(t, rep, engine.Deadlock, "all goroutines are blocked:\n\tG0 cond.wait at l.go:4")
	}
}

// TestCondWaitWithoutLock: Wait unlocks c.L, which is a fatal error when it is not locked.
func TestCondWaitWithoutLock(t *testing.T) {
	rep := spExplore(t, func(et *engine.T) {
		c := sync.NewCond(new(sync.Mutex))
		engine.CondWait(c, "nl.go:1")
	}, firstEnabled(), 1)
	spWantBug(t, rep, engine.Panic, "fatal error: sync: unlock of unlocked mutex")
}

// condQueue is a bounded queue with two condition variables, the classic way.
type condQueue struct {
	mu       sync.Locker
	notEmpty *sync.Cond
	notFull  *sync.Cond
	items    []int
	cap      int
	useIf    bool // the bug: check the condition once instead of in a loop
}

func newCondQueue(l sync.Locker, capacity int, useIf bool) *condQueue {
	return &condQueue{mu: l, notEmpty: sync.NewCond(l), notFull: sync.NewCond(l), cap: capacity, useIf: useIf}
}

func (q *condQueue) put(v int) {
	engine.LockerLock(q.mu, "q.go:1")
	for len(q.items) == q.cap {
		engine.CondWait(q.notFull, "q.go:2")
		if q.useIf {
			break
		}
	}
	if len(q.items) >= q.cap {
		panic("queue overflow")
	}
	q.items = append(q.items, v)
	engine.CondSignal(q.notEmpty, "q.go:3")
	engine.LockerUnlock(q.mu, "q.go:4")
}

func (q *condQueue) get() int {
	engine.LockerLock(q.mu, "q.go:5")
	for len(q.items) == 0 {
		engine.CondWait(q.notEmpty, "q.go:6")
		if q.useIf {
			break
		}
	}
	v := q.items[0] // an index out of range when the buggy check lets a taker through
	q.items = q.items[1:]
	engine.CondSignal(q.notFull, "q.go:7")
	engine.LockerUnlock(q.mu, "q.go:8")
	return v
}

// TestCondProducerConsumer: two producers, two consumers, a queue of capacity 1, for each
// kind of Locker: no bug in any of many random schedules. With the classic bug (if instead
// of for around Wait) random exploration finds the index panic.
func TestCondProducerConsumer(t *testing.T) {
	lockers := []struct {
		name string
		mk   func() sync.Locker
	}{
		{"Mutex", func() sync.Locker { return new(sync.Mutex) }},
		{"RWMutex", func() sync.Locker { return new(sync.RWMutex) }},
		{"user", func() sync.Locker { return new(userLocker) }},
	}
	body := func(mk func() sync.Locker, useIf bool) func(*engine.T) {
		return func(et *engine.T) {
			q := newCondQueue(mk(), 1, useIf)
			var wg sync.WaitGroup
			var mu sync.Mutex
			sum := 0
			for p := 0; p < 2; p++ {
				engine.WGGo(&wg, func() {
					for i := 1; i <= 3; i++ {
						q.put(10*p + i)
					}
				}, "pc.go:1")
				engine.WGGo(&wg, func() {
					for i := 0; i < 3; i++ {
						v := q.get()
						engine.Lock(&mu, "pc.go:2")
						sum += v
						engine.Unlock(&mu, "pc.go:3")
					}
				}, "pc.go:4")
			}
			engine.WGWait(&wg, "pc.go:5")
			if want := 1 + 2 + 3 + 11 + 12 + 13; sum != want {
				et.Errorf("sum = %d, want %d", sum, want)
			}
		}
	}
	for _, l := range lockers {
		t.Run(l.name, func(t *testing.T) {
			spNoBug(t, spExplore(t, body(l.mk, false), randomStrategy(42), 1000))
		})
	}
	rep := spExplore(t, body(lockers[0].mk, true), randomStrategy(43), 5000)
	if rep.First == nil || rep.First.Bug.Kind != engine.Panic {
		t.Fatalf("the if-instead-of-for bug was not found: %+v", rep)
	}
	t.Logf("if-instead-of-for found after %d schedules: %v", rep.FirstAt, rep.First.Bug)
}

// TestCondRLocker: a Cond whose Locker is an RWMutex's RLocker. Readers wait for a flag
// under the read lock; the writer sets it under the write lock and broadcasts.
func TestCondRLocker(t *testing.T) {
	spNoBug(t, spExplore(t, func(et *engine.T) {
		var rw sync.RWMutex
		c := sync.NewCond(engine.RLocker(&rw, "rl.go:0"))
		var wg sync.WaitGroup
		ready := false
		for i := 0; i < 2; i++ {
			engine.WGGo(&wg, func() {
				engine.LockerLock(c.L, "rl.go:1")
				for !ready {
					engine.CondWait(c, "rl.go:2")
				}
				engine.LockerUnlock(c.L, "rl.go:3")
			}, "rl.go:4")
		}
		engine.RWLock(&rw, "rl.go:5")
		ready = true
		engine.RWUnlock(&rw, "rl.go:6")
		engine.CondBroadcast(c, "rl.go:7")
		engine.WGWait(&wg, "rl.go:8")
	}, randomStrategy(44), 1000))
}
