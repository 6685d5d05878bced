package engine_test

import (
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
)

// rwApply performs one operation of a script on rw and returns its result: "t"/"f" for the
// Try operations, "" otherwise.
func rwApply(rw *sync.RWMutex, op string) string {
	b := func(ok bool) string {
		if ok {
			return "t"
		}
		return "f"
	}
	switch op {
	case "L":
		engine.RWLock(rw, "s.go:1")
	case "U":
		engine.RWUnlock(rw, "s.go:2")
	case "R":
		engine.RLock(rw, "s.go:3")
	case "RU":
		engine.RUnlock(rw, "s.go:4")
	case "T":
		return b(engine.RWTryLock(rw, "s.go:5"))
	case "TR":
		return b(engine.RWTryRLock(rw, "s.go:6"))
	default:
		panic("bad op " + op)
	}
	return ""
}

func rwScript(rw *sync.RWMutex, script string) string {
	var out []string
	for _, op := range strings.Fields(script) {
		if r := rwApply(rw, op); r != "" {
			out = append(out, op+"="+r)
		}
	}
	return strings.Join(out, " ")
}

// TestRWMutexTryMatchesSync runs single-goroutine scripts that never block both on a real
// RWMutex (outside an execution the engine functions perform the real operations) and under
// the engine, and compares the results of TryLock and TryRLock.
func TestRWMutexTryMatchesSync(t *testing.T) {
	scripts := []struct{ script, want string }{
		{"T T TR U TR TR T RU RU T U", "T=t T=f TR=f TR=t TR=t T=f T=t"},
		{"R TR T RU RU T U", "TR=t T=f T=t"},
		{"L T TR U T U TR RU", "T=f TR=f T=t TR=t"},
		{"R R T RU T RU T U L U TR RU", "T=f T=f T=t TR=t"},
	}
	for _, tt := range scripts {
		var real sync.RWMutex
		if got := rwScript(&real, tt.script); got != tt.want {
			t.Errorf("real %q: %q, want %q", tt.script, got, tt.want)
		}
		var got string
		res := engine.Run(func(et *engine.T) {
			var rw sync.RWMutex
			got = rwScript(&rw, tt.script)
		}, firstEnabled(), engine.Config{})
		if res.Bug != nil || res.Err != nil {
			t.Fatalf("%q: %v %v", tt.script, res.Bug, res.Err)
		}
		if got != tt.want {
			t.Errorf("engine %q: %q, want %q", tt.script, got, tt.want)
		}
	}
}

// TestRWMutexFatal checks the fatal errors of misused RWMutexes and their messages.
func TestRWMutexFatal(t *testing.T) {
	const (
		runlock = "fatal error: sync: RUnlock of unlocked RWMutex"
		unlock  = "fatal error: sync: Unlock of unlocked RWMutex"
	)
	tests := []struct{ script, msg string }{
		{"RU", runlock},
		{"U", unlock},
		{"R U", unlock},
		{"L RU", runlock},
		{"R RU RU", runlock},
		{"L U U", unlock},
		{"R R RU RU RU", runlock},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			rep := spExplore(t, func(et *engine.T) {
				var rw sync.RWMutex
				rwScript(&rw, tt.script)
			}, firstEnabled(), 1)
			spWantBug(t, rep, engine.Panic, tt.msg)
		})
	}
}

// TestRWMutexReadersShareWritersExclude: a reader holding the lock does not stop another
// reader, and does stop a writer (the program deadlocks in every schedule).
func TestRWMutexReadersShareWritersExclude(t *testing.T) {
	body := func(write bool) func(*engine.T) {
		return func(et *engine.T) {
			var rw sync.RWMutex
			var wg sync.WaitGroup
			engine.RLock(&rw, "sh.go:1")
			engine.WGGo(&wg, func() {
				if write {
					engine.RWLock(&rw, "sh.go:2")
					engine.RWUnlock(&rw, "sh.go:3")
					return
				}
				engine.RLock(&rw, "sh.go:4")
				engine.RUnlock(&rw, "sh.go:5")
			}, "sh.go:6")
			engine.WGWait(&wg, "sh.go:7")
			engine.RUnlock(&rw, "sh.go:8")
		}
	}
	spNoBug(t, spExplore(t, body(false), randomStrategy(3), 300))
	rep := spExplore(t, body(true), randomStrategy(3), 300)
	if rep.Buggy != 1 || rep.FirstAt != 1 || rep.First.Bug.Kind != engine.Deadlock {
		t.Fatalf("want a deadlock in the first schedule, got %+v", rep)
	}
	if m := rep.First.Bug.Message; !strings.Contains(m, "G0 wg.wait at sh.go:7") || !strings.Contains(m, "G1 lock at sh.go:2") {
		t.Errorf("message %q", m)
	}
}

// TestRWMutexConsistency: writers write two variables under the write lock, readers check
// them equal under the read lock. With write locks no schedule fails; when the writers
// (wrongly) take the read lock, random exploration finds the torn read.
func TestRWMutexConsistency(t *testing.T) {
	body := func(writerReads bool) func(*engine.T) {
		return func(et *engine.T) {
			var rw sync.RWMutex
			var wg sync.WaitGroup
			var x, y int
			for i := 0; i < 2; i++ {
				engine.WGGo(&wg, func() {
					if writerReads {
						engine.RLock(&rw, "c.go:1")
					} else {
						engine.RWLock(&rw, "c.go:2")
					}
					engine.Write(unsafe.Pointer(&x), "c.go:3")
					x++
					engine.Write(unsafe.Pointer(&y), "c.go:4")
					y++
					if writerReads {
						engine.RUnlock(&rw, "c.go:5")
					} else {
						engine.RWUnlock(&rw, "c.go:6")
					}
				}, "c.go:7")
				engine.WGGo(&wg, func() {
					engine.RLock(&rw, "c.go:8")
					engine.Read(unsafe.Pointer(&x), "c.go:9")
					a := x
					engine.Read(unsafe.Pointer(&y), "c.go:10")
					b := y
					if a != b {
						et.Errorf("torn read: x=%d y=%d", a, b)
					}
					engine.RUnlock(&rw, "c.go:11")
				}, "c.go:12")
			}
			engine.WGWait(&wg, "c.go:13")
			if x != 2 || y != 2 {
				et.Errorf("x=%d y=%d", x, y)
			}
		}
	}
	spNoBug(t, spExplore(t, body(false), randomStrategy(4), 1000))
	rep := spExplore(t, body(true), randomStrategy(4), 1000)
	if rep.First == nil || rep.First.Bug.Kind != engine.Fail {
		t.Fatalf("torn read not found: %+v", rep)
	}
}

// TestRWMutexRecursiveRLockDeadlock is the canonical RWMutex deadlock: G0 read-locks, G1
// waits to write-lock, G0 read-locks again and waits behind the writer.
func TestRWMutexRecursiveRLockDeadlock(t *testing.T) {
	body := func(writer bool) func(*engine.T) {
		return func(et *engine.T) {
			var rw sync.RWMutex
			var wg sync.WaitGroup
			engine.RLock(&rw, "r.go:1")
			if writer {
				engine.WGGo(&wg, func() {
					engine.RWLock(&rw, "r.go:2")
					engine.RWUnlock(&rw, "r.go:3")
				}, "r.go:4")
			}
			engine.Gosched("r.go:5")
			engine.RLock(&rw, "r.go:6")
			engine.RUnlock(&rw, "r.go:7")
			engine.RUnlock(&rw, "r.go:8")
			engine.WGWait(&wg, "r.go:9")
		}
	}
	const want = "all goroutines are blocked:\n\tG0 rlock at r.go:6\n\tG1 lock at r.go:2"
	// Deterministic: firstEnabled lets G1 announce itself at G0's yield.
	spWantBug(t, spExplore(t, body(true), firstEnabled(), 1), engine.Deadlock, want)
	// Random exploration finds it too, and without the writer there is no deadlock.
	spWantBug(t, spExplore(t, body(true), randomStrategy(5), 500), engine.Deadlock, want)
	spNoBug(t, spExplore(t, body(false), randomStrategy(5), 100))
}

// TestRWMutexWaitingWriterBlocksReaders: while a writer waits for a reader to leave, new
// readers cannot enter (TryRLock fails) and TryLock fails; once the writer is done they can.
func TestRWMutexWaitingWriterBlocksReaders(t *testing.T) {
	var got []bool
	rep := spExplore(t, func(et *engine.T) {
		var rw sync.RWMutex
		var wg sync.WaitGroup
		got = got[:0]
		engine.RLock(&rw, "w.go:1")
		engine.WGGo(&wg, func() {
			engine.RWLock(&rw, "w.go:2")
			engine.RWUnlock(&rw, "w.go:3")
		}, "w.go:4")
		engine.Gosched("w.go:5") // G1 announces itself and waits for G0
		got = append(got, engine.RWTryRLock(&rw, "w.go:6"), engine.RWTryLock(&rw, "w.go:7"))
		engine.RUnlock(&rw, "w.go:8")
		engine.WGWait(&wg, "w.go:9")
		got = append(got, engine.RWTryRLock(&rw, "w.go:10"))
		engine.RUnlock(&rw, "w.go:11")
	}, firstEnabled(), 1)
	spNoBug(t, rep)
	if len(got) != 3 || got[0] || got[1] || !got[2] {
		t.Fatalf("TryRLock, TryLock while a writer waits, TryRLock after: %v, want [false false true]", got)
	}
}

// TestRWMutexReadersBeforeNextWriter: readers that blocked behind a writer get the lock when
// it unlocks, before a writer that was waiting for the writer mutex — even when the strategy
// runs that writer first.
func TestRWMutexReadersBeforeNextWriter(t *testing.T) {
	var log []string
	rep := spExplore(t, func(et *engine.T) {
		var rw sync.RWMutex
		var wg sync.WaitGroup
		log = log[:0]
		engine.RWLock(&rw, "o.go:1")
		engine.WGGo(&wg, func() { // G1: blocks behind G0
			engine.RLock(&rw, "o.go:2")
			log = append(log, "reader")
			engine.RUnlock(&rw, "o.go:3")
		}, "o.go:4")
		engine.WGGo(&wg, func() { // G2: waits for the writer mutex
			engine.RWLock(&rw, "o.go:5")
			log = append(log, "writer")
			engine.RWUnlock(&rw, "o.go:6")
		}, "o.go:7")
		engine.RWUnlock(&rw, "o.go:8")
		engine.WGWait(&wg, "o.go:9")
	}, spHighestFirst(), 1)
	spNoBug(t, rep)
	if strings.Join(log, ",") != "reader,writer" {
		t.Fatalf("log = %q, want reader first", log)
	}
}
