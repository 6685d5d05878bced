package engine_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
)

// Helpers of the tests of the sync primitives (rwmutex, waitgroup, once, cond, atomic).

// spExplore explores body for n schedules under s. A strategy error or a limitation fails
// the test: the programs of these tests are fully controlled.
func spExplore(t *testing.T, body func(*engine.T), s engine.Strategy, n int) *engine.Report {
	t.Helper()
	rep := engine.Explore(body, engine.Config{Strategy: s, Schedules: n})
	if rep.Err != nil {
		t.Fatalf("strategy error: %v", rep.Err)
	}
	if len(rep.Limitations) > 0 {
		t.Fatalf("limitations: %+v", rep.Limitations)
	}
	return rep
}

// spNoBug fails the test if the exploration found a bug.
func spNoBug(t *testing.T, rep *engine.Report) {
	t.Helper()
	if rep.First != nil {
		t.Fatalf("schedule %d of %d: %v\nlogs: %q", rep.FirstAt, rep.Schedules, rep.First.Bug, rep.First.Bug.Logs)
	}
}

// spWantBug fails the test unless the exploration found a bug of the kind whose message is
// msg, and returns it.
func spWantBug(t *testing.T, rep *engine.Report, kind engine.BugKind, msg string) *engine.Bug {
	t.Helper()
	if rep.First == nil {
		t.Fatalf("no bug in %d schedules, want %s %q", rep.Schedules, kind, msg)
	}
	b := rep.First.Bug
	if b.Kind != kind || b.Message != msg {
		t.Fatalf("bug = %v\nwant %s %q", b, kind, msg)
	}
	return b
}

// spHighestFirst always runs the enabled goroutine created last.
func spHighestFirst() *funcStrategy {
	return &funcStrategy{pick: func(d *engine.Decision) engine.GID { return d.EnabledAt(d.NumEnabled() - 1) }}
}

// spAwait yields until cond holds (a busy-wait loop the strategies handle).
func spAwait(cond func() bool, pos engine.Pos) {
	for !cond() {
		engine.Gosched(pos)
	}
}

// userLocker is a sync.Locker that is not one of package sync's: a spin lock built on
// controlled atomics.
type userLocker struct {
	state  atomic.Int32
	locks  int
	unlock int
}

func (l *userLocker) Lock() {
	for !engine.AtomicInt32CompareAndSwap(&l.state, 0, 1, "ul.go:1") {
		engine.Gosched("ul.go:2")
	}
	l.locks++
}

func (l *userLocker) Unlock() {
	l.unlock++
	engine.AtomicInt32Store(&l.state, 0, "ul.go:3")
}

// TestLockerExcludes checks that LockerLock/LockerUnlock give mutual exclusion for every
// kind of Locker, and reader sharing for the RLockers: a read-modify-write of a shared
// counter with a scheduling point in the middle is never lost (or, between readers holding
// an RLocker, a reader can see another one inside).
func TestLockerExcludes(t *testing.T) {
	var mu sync.Mutex
	var rw sync.RWMutex
	var ul userLocker
	tests := []struct {
		name   string
		locker func() sync.Locker
		shared bool // readers: the lock does not exclude
	}{
		{"Mutex", func() sync.Locker { return &mu }, false},
		{"RWMutex", func() sync.Locker { return &rw }, false},
		{"RLocker", func() sync.Locker { return engine.RLocker(&rw, "lk.go:0") }, true},
		{"sync.RLocker", func() sync.Locker { return rw.RLocker() }, true},
		{"user", func() sync.Locker { return &ul }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inside, maxInside := 0, 0
			body := func(et *engine.T) {
				l := tt.locker()
				var wg sync.WaitGroup
				inside, maxInside = 0, 0
				for i := 0; i < 3; i++ {
					engine.WGGo(&wg, func() {
						engine.LockerLock(l, "lk.go:1")
						engine.Write(unsafe.Pointer(&inside), "lk.go:2")
						inside++
						maxInside = max(maxInside, inside)
						engine.Write(unsafe.Pointer(&inside), "lk.go:3")
						inside--
						engine.LockerUnlock(l, "lk.go:4")
					}, "lk.go:5")
				}
				engine.WGWait(&wg, "lk.go:6")
				if !tt.shared && maxInside > 1 {
					et.Errorf("%d goroutines inside the lock", maxInside)
				}
			}
			if tt.shared {
				// Readers share: some schedule has two readers inside.
				rep := spExplore(t, func(et *engine.T) {
					body(et)
					if maxInside > 1 {
						et.Errorf("shared")
					}
				}, randomStrategy(11), 500)
				spWantBug(t, rep, engine.Fail, "shared")
				return
			}
			spNoBug(t, spExplore(t, body, randomStrategy(11), 500))
		})
	}
	if ul.locks == 0 || ul.locks != ul.unlock {
		t.Errorf("user locker: %d locks, %d unlocks", ul.locks, ul.unlock)
	}
}

// TestLockerRLockerDirectCall checks that the RLocker's own methods, called directly (as
// uninstrumented code would), are still controlled: the read lock waits for the writer.
func TestLockerRLockerDirectCall(t *testing.T) {
	for _, name := range []string{"engine", "sync"} {
		t.Run(name, func(t *testing.T) {
			var log []string
			rep := spExplore(t, func(et *engine.T) {
				var rw sync.RWMutex
				var wg sync.WaitGroup
				l := engine.RLocker(&rw, "rd.go:0")
				if name == "sync" {
					l = rw.RLocker()
				}
				log = log[:0]
				engine.RWLock(&rw, "rd.go:1")
				engine.WGGo(&wg, func() {
					if name == "sync" {
						// Package sync's RLocker cannot be called directly: its methods
						// are real. It goes through LockerLock and LockerUnlock.
						engine.LockerLock(l, "rd.go:2")
						log = append(log, "reader")
						engine.LockerUnlock(l, "rd.go:3")
						return
					}
					l.Lock()
					log = append(log, "reader")
					l.Unlock()
				}, "rd.go:4")
				engine.Gosched("rd.go:5")
				log = append(log, "writer unlocks")
				engine.RWUnlock(&rw, "rd.go:6")
				engine.WGWait(&wg, "rd.go:7")
			}, firstEnabled(), 1)
			spNoBug(t, rep)
			if len(log) != 2 || log[0] != "writer unlocks" || log[1] != "reader" {
				t.Fatalf("log = %q", log)
			}
		})
	}
}

// TestLockerRLockerIdentity checks that RLocker returns the same Locker for the same RWMutex,
// as rw.RLocker() does.
func TestLockerRLockerIdentity(t *testing.T) {
	var rw, other sync.RWMutex
	if engine.RLocker(&rw, "a") != engine.RLocker(&rw, "b") {
		t.Error("RLocker(rw) != RLocker(rw)")
	}
	if engine.RLocker(&rw, "a") == engine.RLocker(&other, "a") {
		t.Error("RLocker(rw) == RLocker(other)")
	}
}

// TestLockerNil checks that a nil Locker panics as the method call does.
func TestLockerNil(t *testing.T) {
	rep := spExplore(t, func(et *engine.T) {
		engine.LockerLock(nil, "nil.go:1")
	}, firstEnabled(), 1)
	spWantBug(t, rep, engine.Panic, "runtime error: invalid memory address or nil pointer dereference")
}

// TestSyncMixedProgram: a correct program using every primitive — a lazily initialized
// configuration (OnceValue), a cache under an RWMutex, a Cond-based queue between producers
// and consumers, WaitGroups, atomic statistics and a Mutex — explored for 2,000 random
// schedules without a bug.
func TestSyncMixedProgram(t *testing.T) {
	rep := spExplore(t, func(et *engine.T) {
		var inits atomic.Int32
		config := engine.OnceValue(func() int {
			engine.AtomicInt32Add(&inits, 1, "mx.go:1")
			return 10
		}, "mx.go:2")
		var cacheMu sync.RWMutex
		cache := map[int]int{}
		var hits, misses atomic.Int64
		lookup := func(k int) int {
			engine.RLock(&cacheMu, "mx.go:3")
			v, ok := cache[k]
			engine.RUnlock(&cacheMu, "mx.go:4")
			if ok {
				engine.AtomicInt64Add(&hits, 1, "mx.go:5")
				return v
			}
			engine.AtomicInt64Add(&misses, 1, "mx.go:6")
			v = k * config()
			engine.RWLock(&cacheMu, "mx.go:7")
			cache[k] = v
			engine.RWUnlock(&cacheMu, "mx.go:8")
			return v
		}
		q := newCondQueue(new(sync.Mutex), 2, false)
		var producers, consumers sync.WaitGroup
		var sumMu sync.Mutex
		sum := 0
		for p := 0; p < 2; p++ {
			engine.WGGo(&producers, func() {
				for k := 1; k <= 2; k++ {
					q.put(lookup(k))
				}
			}, "mx.go:9")
		}
		for c := 0; c < 2; c++ {
			engine.WGGo(&consumers, func() {
				for i := 0; i < 2; i++ {
					v := q.get()
					engine.Lock(&sumMu, "mx.go:10")
					sum += v
					engine.Unlock(&sumMu, "mx.go:11")
				}
			}, "mx.go:12")
		}
		engine.WGWait(&producers, "mx.go:13")
		engine.WGWait(&consumers, "mx.go:14")
		if sum != 2*(10+20) {
			et.Errorf("sum = %d", sum)
		}
		if n := engine.AtomicInt32Load(&inits, "mx.go:15"); n != 1 {
			et.Errorf("config initialized %d times", n)
		}
		if h, m := engine.AtomicInt64Load(&hits, "mx.go:16"), engine.AtomicInt64Load(&misses, "mx.go:17"); h+m != 4 || m < 2 {
			et.Errorf("hits %d misses %d", h, m)
		}
	}, randomStrategy(61), 2000)
	spNoBug(t, rep)
	if rep.Schedules != 2000 || rep.Interleavings < 1000 {
		t.Errorf("%d schedules, %d interleavings", rep.Schedules, rep.Interleavings)
	}
	t.Logf("%d schedules, %d interleavings, up to %d steps", rep.Schedules, rep.Interleavings, rep.MaxSteps)
}
