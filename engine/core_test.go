package engine_test

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
)

// funcStrategy is a minimal strategy for the engine's own tests: pick decides each step;
// choices take the first alternative.
type funcStrategy struct {
	pick  func(d *engine.Decision) engine.GID
	runs  int
	limit int
}

func (s *funcStrategy) Name() string                       { return "test" }
func (s *funcStrategy) Params() map[string]string          { return nil }
func (s *funcStrategy) Begin() bool                        { s.runs++; return s.limit == 0 || s.runs <= s.limit }
func (s *funcStrategy) Pick(d *engine.Decision) engine.GID { return s.pick(d) }
func (s *funcStrategy) Choose(c *engine.Choice) int        { return 0 }
func (s *funcStrategy) End(*engine.Result)                 {}

// firstEnabled never preempts: it keeps the last goroutine while it is enabled, else takes
// the lowest id; after a yield it moves on to the next goroutine in id order.
func firstEnabled() *funcStrategy {
	return &funcStrategy{pick: func(d *engine.Decision) engine.GID {
		if d.LastOp == engine.OpYield {
			for _, g := range d.Enabled() {
				if g > d.Last {
					return g
				}
			}
			return d.EnabledAt(0)
		}
		if d.LastEnabled {
			return d.Last
		}
		return d.EnabledAt(0)
	}}
}

func randomStrategy(seed uint64) *funcStrategy {
	r := rand.New(rand.NewPCG(seed, 1))
	return &funcStrategy{pick: func(d *engine.Decision) engine.GID { return d.EnabledAt(r.IntN(d.NumEnabled())) }}
}

func TestLostUpdateFoundByRandom(t *testing.T) {
	body := func(t *engine.T) {
		var n int
		done := 0
		var mu sync.Mutex
		for i := 0; i < 2; i++ {
			engine.Go(func() {
				engine.Read(unsafe.Pointer(&n), "c.go:1")
				v := n
				engine.Write(unsafe.Pointer(&n), "c.go:2")
				n = v + 1
				engine.Lock(&mu, "c.go:3")
				done++
				engine.Unlock(&mu, "c.go:4")
			}, "c.go:0")
		}
		for {
			engine.Lock(&mu, "c.go:5")
			d := done
			engine.Unlock(&mu, "c.go:6")
			if d == 2 {
				break
			}
			engine.Gosched("c.go:7")
		}
		if n != 2 {
			t.Errorf("n = %d, want 2", n)
		}
	}
	rep := engine.Explore(body, engine.Config{Strategy: randomStrategy(1), Schedules: 1000})
	if rep.First == nil {
		t.Fatalf("no bug in %d schedules", rep.Schedules)
	}
	if rep.First.Bug.Kind != engine.Fail || !strings.Contains(rep.First.Bug.Message, "n = 1") {
		t.Fatalf("bug = %v", rep.First.Bug)
	}
	t.Logf("found after %d schedules: %v", rep.FirstAt, rep.First.Bug)
	rep = engine.Explore(body, engine.Config{Strategy: firstEnabled(), Schedules: 10})
	if rep.First != nil {
		t.Fatalf("non-preemptive schedule failed: %v", rep.First.Bug)
	}
}

func TestDeadlockAndLeakAndPanic(t *testing.T) {
	t.Run("deadlock", func(t *testing.T) {
		rep := engine.Explore(func(t *engine.T) {
			var a, b sync.Mutex
			engine.Go(func() {
				engine.Lock(&a, "d.go:1")
				engine.Lock(&b, "d.go:2")
				engine.Unlock(&b, "d.go:3")
				engine.Unlock(&a, "d.go:4")
			}, "d.go:0")
			engine.Lock(&b, "d.go:5")
			engine.Lock(&a, "d.go:6")
			engine.Unlock(&a, "d.go:7")
			engine.Unlock(&b, "d.go:8")
		}, engine.Config{Strategy: randomStrategy(2), Schedules: 200})
		if rep.First == nil || rep.First.Bug.Kind != engine.Deadlock {
			t.Fatalf("report %+v", rep)
		}
		t.Log(rep.First.Bug.Message)
		for _, g := range rep.First.Bug.Goroutines {
			t.Logf("%v %s %v %v", g.ID, g.Status, g.Pending, g.Stack)
			if len(g.Stack) == 0 {
				t.Errorf("%v has no stack", g.ID)
			}
		}
	})
	t.Run("leak", func(t *testing.T) {
		rep := engine.Explore(func(t *engine.T) {
			var a sync.Mutex
			engine.Lock(&a, "l.go:1")
			engine.Go(func() { engine.Lock(&a, "l.go:2") }, "l.go:0")
		}, engine.Config{Strategy: firstEnabled(), Schedules: 1})
		if rep.First == nil || rep.First.Bug.Kind != engine.Leak {
			t.Fatalf("report %+v", rep)
		}
		t.Log(rep.First.Bug.Message)
	})
	t.Run("panic", func(t *testing.T) {
		rep := engine.Explore(func(t *engine.T) {
			var m map[int]int
			engine.Go(func() {
				engine.Gosched("p.go:1")
				m[1] = 2
			}, "p.go:0")
			engine.Sleep(time.Hour, "p.go:2")
		}, engine.Config{Strategy: firstEnabled(), Schedules: 1})
		if rep.First == nil || rep.First.Bug.Kind != engine.Panic {
			t.Fatalf("report %+v", rep)
		}
		t.Log(rep.First.Bug, rep.First.Bug.Goroutines)
	})
	t.Run("livelock", func(t *testing.T) {
		rep := engine.Explore(func(t *engine.T) {
			for {
				engine.Gosched("ll.go:1")
			}
		}, engine.Config{Strategy: firstEnabled(), Schedules: 1, MaxSteps: 1000})
		if rep.First == nil || rep.First.Bug.Kind != engine.Livelock {
			t.Fatalf("report %+v", rep)
		}
	})
}

// lowestFirst runs the enabled goroutine with the lowest id, highestFirst the highest.
func lowestFirst() *funcStrategy {
	return &funcStrategy{pick: func(d *engine.Decision) engine.GID { return d.EnabledAt(0) }}
}

func highestFirst() *funcStrategy {
	return &funcStrategy{pick: func(d *engine.Decision) engine.GID { return d.EnabledAt(d.NumEnabled() - 1) }}
}

// TestFingerprintIsTheHappensBeforeOrder checks the "distinct partial orders" metric: two
// schedules that only reorder independent operations (different variables, or two reads) have
// one fingerprint; reordering dependent ones (two writes, a read and a write of one variable)
// gives another.
func TestFingerprintIsTheHappensBeforeOrder(t *testing.T) {
	var x, y int
	for _, tc := range []struct {
		name     string
		op1, op2 func(unsafe.Pointer, engine.Pos)
		a1, a2   *int
		same     bool
	}{
		{"writes of different variables", engine.Write, engine.Write, &x, &y, true},
		{"writes of one variable", engine.Write, engine.Write, &x, &x, false},
		{"read and write of one variable", engine.Read, engine.Write, &x, &x, false},
		{"reads of one variable", engine.Read, engine.Read, &x, &x, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := func(t *engine.T) {
				engine.GoAll([]func(){
					func() { tc.op1(unsafe.Pointer(tc.a1), "f.go:1") },
					func() { tc.op2(unsafe.Pointer(tc.a2), "f.go:2") },
				}, "f.go:0")
			}
			r1 := engine.Run(body, lowestFirst(), engine.Config{})
			r2 := engine.Run(body, highestFirst(), engine.Config{})
			if r1.Schedule[1].G == r2.Schedule[1].G {
				t.Fatalf("the two strategies ran the same schedule")
			}
			if same := r1.Fingerprint == r2.Fingerprint; same != tc.same {
				t.Errorf("fingerprints equal = %v, want %v", same, tc.same)
			}
		})
	}
}

// TestWatchdogTellsBusyLoopFromBlocked checks that a goroutine that spins without reaching a
// scheduling point (a busy-wait on a variable the engine does not see) is described as running,
// with the CPU it used as the evidence, not as blocked in a system call.
func TestWatchdogTellsBusyLoopFromBlocked(t *testing.T) {
	var release atomic.Bool
	defer release.Store(true)
	rep := engine.Explore(func(t *engine.T) {
		engine.Gosched("spin.go:1")
		for !release.Load() { // not instrumented: the engine cannot see it
		}
	}, engine.Config{Strategy: firstEnabled(), Schedules: 5, Watchdog: 300 * time.Millisecond})
	if rep.Stopped != "limitation" || len(rep.Limitations) != 1 {
		t.Fatalf("report %+v", rep)
	}
	if l := rep.Limitations[0]; l.Kind != "watchdog" || !strings.Contains(l.Message, "kept running without one") || strings.Contains(l.Message, "blocked") {
		t.Fatalf("limitation %+v, want it described as a loop that kept running", l)
	}
}

// TestWatchdogAbandonsGoroutineBlockedOutsideTheEngine checks that a goroutine blocked in an
// operation the engine does not control (here a real channel receive) ends the exploration
// cleanly with a limitation naming where it was, and that the engine works afterwards. The
// test waits for the watchdog in real time (a fraction of a second): that is what it tests.
func TestWatchdogAbandonsGoroutineBlockedOutsideTheEngine(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	rep := engine.Explore(func(t *engine.T) {
		engine.Go(func() {
			engine.Lock(&mu, "w.go:1")
			engine.Unlock(&mu, "w.go:2")
		}, "w.go:3")
		engine.Gosched("w.go:4")
		<-release // not instrumented: the engine cannot see it
	}, engine.Config{Strategy: firstEnabled(), Schedules: 5, Watchdog: 100 * time.Millisecond})
	if rep.Stopped != "limitation" || len(rep.Limitations) != 1 || rep.Schedules != 1 {
		t.Fatalf("report %+v", rep)
	}
	l := rep.Limitations[0]
	if l.Kind != "watchdog" || !strings.Contains(l.Message, "blocked outside the engine's control") {
		t.Fatalf("limitation %+v", l)
	}
	// The engine goes on working with a new execution.
	rep = engine.Explore(func(t *engine.T) {
		engine.Go(func() { engine.Lock(&mu, "w.go:5"); engine.Unlock(&mu, "w.go:6") }, "w.go:7")
	}, engine.Config{Strategy: randomStrategy(3), Schedules: 100})
	if rep.First != nil || rep.Schedules != 100 {
		t.Fatalf("after the watchdog: %+v", rep)
	}
	// Once released, the orphan exits and is forgotten: the runtime reuses an exited
	// goroutine's identity, and a later goroutine given it must not be taken for the orphan.
	close(release)
	give := time.After(time.Minute) // guards against a hang only
	for engine.OrphanCount() > 0 {
		select {
		case <-give:
			t.Fatalf("%d orphans still registered after they exited", engine.OrphanCount())
		default:
			runtime.Gosched()
		}
	}
}

// TestExplorationGoexitInCallback checks that runtime.Goexit in a callback of the exploration's
// loop (OnExecution calling t.FailNow, say) ends the exploration with an error instead of
// leaving Explore's caller waiting for a loop that is gone.
func TestExplorationGoexitInCallback(t *testing.T) {
	rep := engine.Explore(func(t *engine.T) {
		engine.Gosched("c.go:1")
	}, engine.Config{Strategy: firstEnabled(), Schedules: 10, OnExecution: func(n int, r *engine.Result) {
		if n == 3 {
			runtime.Goexit()
		}
	}})
	if rep.Stopped != "error" || rep.Err == nil || !strings.Contains(rep.Err.Error(), "runtime.Goexit") || rep.Schedules != 3 {
		t.Fatalf("report %+v, want stopped by an error naming runtime.Goexit after 3 schedules", rep)
	}
}

// TestWatchdogAbandonsWhileTheLoopWaits is the watchdog's case where the execution's first
// goroutine has returned — the exploration's goroutine, which ran it, waits for the end — and
// another goroutine is blocked outside the engine: the exploration ends with the limitation,
// the waiting goroutine goes away, and the engine works afterwards.
func TestWatchdogAbandonsWhileTheLoopWaits(t *testing.T) {
	// The watchdog's goroutine, started by the first exploration, stays.
	engine.Explore(func(*engine.T) {}, engine.Config{Strategy: firstEnabled(), Schedules: 1})
	before := runtime.NumGoroutine()
	release := make(chan struct{})
	defer close(release)
	rep := engine.Explore(func(t *engine.T) {
		engine.Go(func() {
			engine.Gosched("l.go:1")
			<-release // not instrumented: the engine cannot see it
		}, "l.go:2")
	}, engine.Config{Strategy: firstEnabled(), Schedules: 5, Watchdog: 100 * time.Millisecond})
	if rep.Stopped != "limitation" || len(rep.Limitations) != 1 || rep.Schedules != 1 {
		t.Fatalf("report %+v", rep)
	}
	if l := rep.Limitations[0]; l.Kind != "watchdog" || !strings.Contains(l.Message, "l.go:2") {
		t.Fatalf("limitation %+v, want the goroutine started at l.go:2", l)
	}
	// Only the blocked goroutine is left (until released): the exploration's goroutine, which
	// waited for the end, has gone.
	give := time.After(time.Minute) // guards against a hang only
	for runtime.NumGoroutine() > before+1 {
		select {
		case <-give:
			t.Fatalf("%d goroutines before the exploration, %d after, want one more", before, runtime.NumGoroutine())
		default:
			runtime.Gosched()
		}
	}
	rep = engine.Explore(func(t *engine.T) {
		engine.Gosched("l.go:3")
	}, engine.Config{Strategy: randomStrategy(3), Schedules: 50})
	if rep.First != nil || rep.Schedules != 50 {
		t.Fatalf("after the watchdog: %+v", rep)
	}
}

// TestForeignGoroutinePassesThrough checks that a goroutine the engine did not start (as an
// uninstrumented library's worker would be) runs its operations for real, never wedges the
// execution, and is reported.
func TestForeignGoroutinePassesThrough(t *testing.T) {
	rep := engine.Explore(func(t *engine.T) {
		var mu sync.Mutex
		done := make(chan struct{})
		go func() { // a real goroutine: not controlled
			engine.Lock(&mu, "x.go:1")
			engine.Unlock(&mu, "x.go:2")
			close(done)
		}()
		<-done
		engine.Gosched("x.go:3")
	}, engine.Config{Strategy: firstEnabled(), Schedules: 3})
	if rep.First != nil || rep.Schedules != 3 {
		t.Fatalf("report %+v", rep)
	}
	found := false
	for _, l := range rep.Limitations {
		found = found || (l.Kind == "foreign" && l.Pos == "x.go:1")
	}
	if !found {
		t.Fatalf("foreign operations not reported: %+v", rep.Limitations)
	}
}

func TestStandardLibraryFrames(t *testing.T) {
	for fn, want := range map[string]bool{
		"sync.runtime_SemacquireWaitGroup":           true,
		"sync.(*WaitGroup).Wait":                     true,
		"net/http.(*Client).Do":                      true,
		"golang.org/x/sync/singleflight.(*Group).Do": false,
		"github.com/a/b.(*T).M":                      false,
		"example.com/m.F":                            false,
		"main.main":                                  false,
	} {
		if got := engine.StandardLibrary(fn); got != want {
			t.Errorf("standardLibrary(%q) = %v, want %v", fn, got, want)
		}
	}
}

// TestExplorationLoopPassedOn checks the goroutine that runs the exploration's loop and each
// execution's first goroutine (exploration.runInline) across the ways an execution can end:
// the first goroutine returns while others run on, exits with t.FailNow (runtime.Goexit), or
// is blocked when another goroutine's panic or a deadlock ends the execution — the last three
// pass the loop on to a new goroutine. Every execution must be counted once with its outcome,
// and no goroutine may be left behind.
func TestExplorationLoopPassedOn(t *testing.T) {
	// The watchdog's goroutine, started by the first exploration, stays.
	engine.Explore(func(*engine.T) {}, engine.Config{Strategy: firstEnabled(), Schedules: 1})
	before := runtime.NumGoroutine()
	outcomes := map[string]int{}
	rep := engine.Explore(func(t *engine.T) {
		ch := engine.MakeChan[int](0, "p.go:1")
		var x int
		engine.Go(func() {
			engine.Write(unsafe.Pointer(&x), "p.go:2")
			x = 1
		}, "p.go:3")
		engine.Go(func() {
			engine.Write(unsafe.Pointer(&x), "p.go:4")
			x = 2
			engine.Read(unsafe.Pointer(&x), "p.go:5")
			if x == 2 {
				panic("two")
			}
		}, "p.go:6")
		engine.Read(unsafe.Pointer(&x), "p.go:7")
		switch x {
		case 0:
			t.FailNow()
		case 1:
			engine.Recv(ch, "p.go:8") // nobody sends: a deadlock, or the panic first
		}
	}, engine.Config{Strategy: randomStrategy(7), Schedules: 400, KeepGoing: true,
		OnExecution: func(n int, r *engine.Result) {
			if r.Bug != nil {
				outcomes[string(r.Bug.Kind)]++
			} else {
				outcomes["ok"]++
			}
		}})
	if rep.Schedules != 400 || rep.Stopped != "schedules" {
		t.Fatalf("report %+v", rep)
	}
	total := 0
	for _, n := range outcomes {
		total += n
	}
	if total != 400 || outcomes["fail"] == 0 || outcomes["deadlock"] == 0 || outcomes["panic"] == 0 {
		t.Fatalf("outcomes %v: want 400 executions, some failed, deadlocked and panicked", outcomes)
	}
	// The goroutines the exploration started have exited (they may take a moment to).
	give := time.After(time.Minute) // guards against a hang only
	for runtime.NumGoroutine() > before {
		select {
		case <-give:
			t.Fatalf("%d goroutines before the exploration, %d after", before, runtime.NumGoroutine())
		default:
			runtime.Gosched()
		}
	}
}
