package engine_test

import (
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
)

// janitor starts a goroutine that cleans up on a ticker forever, as a cache's janitor does, and
// returns: the goroutine outlives the test.
func janitor(t *engine.T) {
	tk := engine.NewTicker(time.Millisecond, "cache.go:10")
	engine.Go(func() {
		for {
			engine.Recv(tk.C, "cache.go:12")
		}
	}, "cache.go:11")
}

// deadlineShorterThanWork is a test that waits for a worker's result for 100ms while the
// work takes d: once the work ends, the worker is blocked for good on its unbuffered send.
func deadlineShorterThanWork(d time.Duration) func(*engine.T) {
	return func(t *engine.T) {
		c := engine.MakeChan[int](0, "work.go:1")
		engine.Go(func() {
			engine.Sleep(d, "work.go:3")
			engine.Send(c, 42, "work.go:4")
		}, "work.go:2")
		timeout := engine.After(100*time.Millisecond, "work.go:5")
		switch engine.Select("work.go:6", false, engine.RecvCase(c), engine.RecvCase(timeout)) {
		case 0:
			t.Errorf("the result came before the deadline")
		}
	}
}

// cacheWorker starts a cache's worker, which serves requests until its stop channel is
// closed, has it serve one, and returns without closing the channel.
func cacheWorker(t *engine.T) {
	stop := engine.MakeChan[struct{}](0, "cache.go:20")
	reqs := engine.MakeChan[int](0, "cache.go:21")
	engine.Go(func() {
		for {
			if engine.Select("cache.go:22", false, engine.RecvCase(stop), engine.RecvCase(reqs)) == 0 {
				return
			}
		}
	}, "cache.go:21")
	engine.Send(reqs, 1, "cache.go:25")
}

func TestGoroutinesThatOutliveTheTest(t *testing.T) {
	tests := []struct {
		name   string
		body   func(*engine.T)
		strict bool
		// want is the bug's kind ("" for none), at its position when given; notice, what the
		// background notice says.
		want   engine.BugKind
		at     string
		notice string
	}{
		{name: "a janitor on a ticker is a notice", body: janitor,
			notice: "the test returned while 1 goroutine(s) went on (go test does not fail this; -strict-leaks reports it as a leak):\n\tstarted at cache.go:11: recv at cache.go:12"},
		{name: "two janitors are one line", body: func(t *engine.T) { janitor(t); janitor(t) },
			notice: "2 goroutine(s) went on (go test does not fail this; -strict-leaks reports it as a leak):\n\t2× started at cache.go:11: recv at cache.go:12"},
		{name: "a janitor with -strict-leaks is a leak", body: janitor, strict: true, want: engine.Leak},
		{name: "a goroutine that ends soon after the test is nothing", body: func(t *engine.T) {
			engine.Go(func() { engine.Sleep(10*time.Millisecond, "late.go:2") }, "late.go:1")
		}},
		{name: "a goroutine spinning after the test is a notice", body: func(t *engine.T) {
			engine.Go(func() {
				for {
					engine.Gosched("spin.go:2")
				}
			}, "spin.go:1")
		}, notice: "started at spin.go:1: yield at spin.go:2"},
		{name: "a goroutine blocked forever is still a leak", body: func(t *engine.T) {
			c := engine.MakeChan[int](0, "leak.go:1")
			engine.Go(func() { engine.Send(c, 1, "leak.go:3") }, "leak.go:2")
		}, want: engine.Leak},
		// Issue 47: one rule, whatever the length of the work. A deadline shorter than the
		// work leaves the worker blocked on its unbuffered send once the work ends; that was
		// a leak at 200ms of work and a notice at 2s (past one second of grace).
		{name: "a deadline shorter than 200ms of work is a leak at the send", body: deadlineShorterThanWork(200 * time.Millisecond),
			want: engine.Leak, at: "work.go:4"},
		{name: "a deadline shorter than 2s of work is the same leak at the send", body: deadlineShorterThanWork(2 * time.Second),
			want: engine.Leak, at: "work.go:4"},
		{name: "a deadline shorter than an hour of work is the same leak at the send", body: deadlineShorterThanWork(time.Hour),
			want: engine.Leak, at: "work.go:4"},
		{name: "a worker the test never stopped is a notice", body: cacheWorker,
			notice: "started at cache.go:21: select at cache.go:22"},
		{name: "a worker the test never stopped is a leak with -strict-leaks", body: cacheWorker, strict: true,
			want: engine.Leak, at: "cache.go:22"},
		{name: "a goroutine polling with a sleep is a notice", body: func(t *engine.T) {
			engine.Go(func() {
				for {
					engine.Sleep(5*time.Second, "poll.go:2")
				}
			}, "poll.go:1")
		}, notice: "started at poll.go:1: sleep at poll.go:2"},
		{name: "a goroutine sleeping beside a janitor runs to its end: the janitor is the notice", body: func(t *engine.T) {
			janitor(t)
			engine.Go(func() { engine.Sleep(3*time.Second, "late.go:2") }, "late.go:1")
		}, notice: "started at cache.go:11: recv at cache.go:12"},
		{name: "a livelock during the test is still a livelock", body: func(t *engine.T) {
			for {
				engine.Gosched("live.go:1")
			}
		}, want: engine.Livelock},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := engine.Explore(tt.body, engine.Config{Strategy: randomStrategy(3), Schedules: 5, MaxSteps: 20_000, StrictLeaks: tt.strict})
			if rep.Err != nil || len(rep.Limitations) > 0 {
				t.Fatalf("exploration stopped: %v %v", rep.Err, rep.Limitations)
			}
			var got engine.BugKind
			var bug *engine.Bug
			if rep.First != nil {
				bug = rep.First.Bug
				got = bug.Kind
			}
			if got != tt.want {
				t.Fatalf("bug = %v, want kind %q (background: %v)", bug, tt.want, rep.Background)
			}
			if tt.at != "" && rep.First.Bug.Pos != tt.at {
				t.Errorf("bug at %s, want %s:\n%s", rep.First.Bug.Pos, tt.at, rep.First.Bug.Message)
			}
			switch {
			case tt.notice == "" && rep.Background != nil:
				t.Errorf("background notice %q, want none", rep.Background)
			case tt.notice != "" && rep.Background == nil:
				t.Errorf("no background notice, want %q", tt.notice)
			case tt.notice != "" && !strings.Contains(rep.Background.String(), tt.notice):
				t.Errorf("background notice:\n%s\nwant it to contain:\n%s", rep.Background, tt.notice)
			case tt.notice != "" && rep.Background.Schedules != 5:
				t.Errorf("background in %d schedules, want 5", rep.Background.Schedules)
			}
		})
	}
}

func TestNumGoroutineCountsTheExecution(t *testing.T) {
	// The count a test sees is the same in every execution and follows its own goroutines
	// only: a check that all of them ended holds.
	var counts []int
	body := func(t *engine.T) {
		before := engine.NumGoroutine()
		c := engine.MakeChan[int](0, "n.go:1")
		d := engine.MakeChan[int](0, "n.go:1")
		engine.Go(func() {
			engine.Recv(c, "n.go:3")
			engine.Send(d, 1, "n.go:4")
		}, "n.go:2")
		during := engine.NumGoroutine()
		engine.Send(c, 1, "n.go:5")
		engine.Recv(d, "n.go:6")
		for engine.NumGoroutine() != before { // until the goroutine has returned
			engine.Gosched("n.go:7")
		}
		after := engine.NumGoroutine()
		counts = append(counts, before, during, after)
		if during != before+1 || after != before {
			t.Errorf("NumGoroutine: %d before, %d during, %d after", before, during, after)
		}
	}
	rep := engine.Explore(body, engine.Config{Strategy: randomStrategy(5), Schedules: 20})
	if rep.First != nil {
		t.Fatalf("%v", rep.First.Bug)
	}
	for i := 3; i < len(counts); i++ {
		if counts[i] != counts[i%3] {
			t.Fatalf("counts differ between executions: %v", counts)
		}
	}
}

func TestNothingIsFoundInTeardown(t *testing.T) {
	// The execution ends with G1 blocked; reaping it runs its deferred function, whose write
	// would race with the test's read and whose t.Error would fail the test: neither is a
	// finding of the execution.
	var x int
	body := func(t *engine.T) {
		c := engine.MakeChan[int](0, "d.go:1")
		engine.Go(func() {
			defer func() {
				engine.Write(unsafe.Pointer(&x), "d.go:3")
				t.Errorf("deferred code ran as part of the execution")
			}()
			engine.Recv(c, "d.go:4")
		}, "d.go:2")
		engine.Read(unsafe.Pointer(&x), "d.go:5")
	}
	rep := engine.Explore(body, engine.Config{Strategy: randomStrategy(7), Schedules: 10, Races: true, Points: engine.PointsSync})
	if rep.First == nil || rep.First.Bug.Kind != engine.Leak {
		t.Fatalf("want the leak of G1, got %+v", rep.First)
	}
	if len(rep.Races) > 0 || len(rep.First.Logs) > 0 {
		t.Errorf("found in teardown: races %v, logs %v", rep.Races, rep.First.Logs)
	}
}

func TestStepBoundIsALivelockOnlyWithEvidence(t *testing.T) {
	// A correct test that runs past the step bound (a long producer and consumer) is the step
	// bound reached, a notice; goroutines that only look at each other's flags are a livelock.
	long := func(t *engine.T) {
		c := engine.MakeChan[int](0, "p.go:1")
		engine.Go(func() {
			for i := 0; i < 30_000; i++ {
				engine.Send(c, i, "p.go:3")
			}
			engine.Close(c, "p.go:4")
		}, "p.go:2")
		for {
			if _, ok := engine.Recv2(c, "p.go:5"); !ok {
				return
			}
		}
	}
	spin := func(t *engine.T) {
		var a, b bool
		engine.Go(func() {
			for !engine.Load(&b, "s.go:2") {
			}
			engine.Store(&a, true, "s.go:3")
		}, "s.go:1")
		for !engine.Load(&a, "s.go:4") {
		}
		engine.Store(&b, true, "s.go:5")
	}
	rep := engine.Explore(long, engine.Config{Strategy: randomStrategy(1), Schedules: 2, MaxSteps: 20_000})
	if rep.First != nil || rep.StepBound != 2 || rep.StepBoundAt != 1 {
		t.Errorf("a long correct test: bug %v, %d schedules at the step bound: want no bug and 2", rep.First, rep.StepBound)
	}
	rep = engine.Explore(spin, engine.Config{Strategy: randomStrategy(1), Schedules: 2, MaxSteps: 20_000})
	if rep.First == nil || rep.First.Bug.Kind != engine.Livelock || !strings.Contains(rep.First.Bug.Message, "only looked") {
		t.Errorf("goroutines spinning on each other: %+v, want a livelock", rep.First)
	}
	// Spinning until a sleeper wakes (ants' longRunningFunc and a test that sleeps before it
	// sets the flag) only polls, but a timer is pending: the step bound, not a livelock.
	sleeper := func(t *engine.T) {
		var stop bool
		engine.Go(func() {
			engine.Sleep(time.Hour, "z.go:2")
			engine.Store(&stop, true, "z.go:3")
		}, "z.go:1")
		for !engine.Load(&stop, "z.go:4") {
			engine.Gosched("z.go:5")
		}
	}
	rep = engine.Explore(sleeper, engine.Config{Strategy: randomStrategy(1), Schedules: 2, MaxSteps: 20_000})
	if rep.First != nil || rep.StepBound != 2 {
		t.Errorf("spinning until a sleeper wakes: bug %v, %d at the step bound: want none and 2", rep.First, rep.StepBound)
	}
	// A goroutine summing a large table of atomic counters (xsync's Map.Stats over a presized
	// table) only loads, but each location once: it reads its way through memory, the step
	// bound; spinning over a few locations again and again is a livelock.
	scan := func(size int) func(*engine.T) {
		return func(t *engine.T) {
			counters := make([]int64, size)
			for {
				var sum int64
				for i := range counters {
					sum += engine.AtomicLoadInt64(&counters[i], "t.go:1")
				}
				if sum != 0 || size > 8 {
					return // one pass over a large table; a small one is polled forever
				}
			}
		}
	}
	rep = engine.Explore(scan(50_000), engine.Config{Strategy: randomStrategy(1), Schedules: 1, MaxSteps: 20_000})
	if rep.First != nil || rep.StepBound != 1 {
		t.Errorf("one pass over 50,000 counters: bug %v, %d at the step bound: want none and 1", bugOf(rep), rep.StepBound)
	}
	rep = engine.Explore(scan(8), engine.Config{Strategy: randomStrategy(1), Schedules: 1, MaxSteps: 20_000})
	if rep.First == nil || rep.First.Bug.Kind != engine.Livelock || !strings.Contains(rep.First.Bug.Message, "at the same 8 locations over and over") {
		t.Errorf("polling 8 counters forever: %v, want a livelock at the same 8 locations", bugOf(rep))
	}
}

// TestStarvedGoroutineGetsATimeSlice: a hundred goroutines spin on a flag that one more sets
// after thirty loads of its own. Go's scheduler runs that goroutine's thirty loads in one time
// slice once its turn comes; so does the fairness rule, under every strategy of the default
// portfolio: no execution reaches the step bound, and none is called a livelock.
func TestStarvedGoroutineGetsATimeSlice(t *testing.T) {
	body := func(t *engine.T) {
		var flag, other int32
		var wg sync.WaitGroup
		start := engine.MakeChan[struct{}](0, "f.go:1")
		for range 100 {
			engine.WGAdd(&wg, 1, "f.go:2")
			engine.Go(func() {
				engine.Recv(start, "f.go:4")
				for engine.AtomicLoadInt32(&flag, "f.go:5") == 0 {
				}
				engine.WGDone(&wg, "f.go:6")
			}, "f.go:3")
		}
		engine.WGAdd(&wg, 1, "f.go:7")
		engine.Go(func() {
			engine.Recv(start, "f.go:9")
			for range 30 {
				engine.AtomicLoadInt32(&other, "f.go:10")
			}
			engine.AtomicStoreInt32(&flag, 1, "f.go:11")
			engine.WGDone(&wg, "f.go:12")
		}, "f.go:8")
		engine.Close(start, "f.go:13")
		engine.WGWait(&wg, "f.go:14")
	}
	for _, spec := range defaultSpecs() {
		t.Run(spec, func(t *testing.T) {
			rep := engine.Explore(body, engine.Config{Strategy: newStrategy(t, spec), Schedules: 6})
			if rep.First != nil || rep.StepBound != 0 || rep.Err != nil {
				t.Errorf("bug %v, %d executions at the step bound, error %v: want none", bugOf(rep), rep.StepBound, rep.Err)
			}
		})
	}
}

func TestLockCycleWhileOthersRun(t *testing.T) {
	// Two goroutines take two mutexes in opposite orders while a third ticks forever: the
	// lock-order deadlock is reported as a deadlock with its cycle, not as the step bound or
	// as goroutines going on after the test; in the same program taking the locks in one
	// order, nothing is reported but the ticking goroutine.
	body := func(opposite bool) func(*engine.T) {
		return func(t *engine.T) {
			var a, b sync.Mutex
			tk := engine.NewTicker(time.Millisecond, "c.go:1")
			engine.Go(func() {
				for {
					engine.Recv(tk.C, "c.go:3")
				}
			}, "c.go:2")
			engine.Go(func() {
				engine.Lock(&a, "c.go:5")
				engine.Lock(&b, "c.go:6")
				engine.Unlock(&b, "c.go:7")
				engine.Unlock(&a, "c.go:8")
			}, "c.go:4")
			first, second := &b, &a
			if !opposite {
				first, second = &a, &b
			}
			engine.Lock(first, "c.go:9")
			engine.Lock(second, "c.go:10")
			engine.Unlock(second, "c.go:11")
			engine.Unlock(first, "c.go:12")
		}
	}
	rep := engine.Explore(body(true), engine.Config{Strategy: randomStrategy(3), Schedules: 200, MaxSteps: 20_000})
	if rep.First == nil || rep.First.Bug.Kind != engine.Deadlock || !strings.Contains(rep.First.Bug.Message, "wait for each other's locks") {
		t.Errorf("opposite orders: %+v, want the lock cycle as a deadlock", rep.First)
	}
	rep = engine.Explore(body(false), engine.Config{Strategy: randomStrategy(3), Schedules: 200, MaxSteps: 20_000})
	if rep.First != nil {
		t.Errorf("one order: bug %v, want none", rep.First.Bug)
	}
}

func TestLeakMessageGroupsAlike(t *testing.T) {
	// A thousand goroutines leaked at one send are one line of the leak's message.
	rep := engine.Explore(func(t *engine.T) {
		for range 1000 {
			c := engine.MakeChan[int](0, "g.go:1")
			engine.Go(func() { engine.Send(c, 1, "g.go:3") }, "g.go:2")
		}
	}, engine.Config{Strategy: randomStrategy(1), Schedules: 1})
	if rep.First == nil || rep.First.Bug.Kind != engine.Leak {
		t.Fatalf("want the leak, got %+v", rep.First)
	}
	want := "the test returned, but 1000 goroutine(s) stay blocked forever:\n\tG1–G1000 (1000 goroutines) send at g.go:3"
	if msg := rep.First.Bug.Message; msg != want {
		t.Errorf("message:\n%s\nwant:\n%s", msg, want)
	}
}

// cycleChecker compares, at every decision, the two walks of the waits for locks.
type cycleChecker struct {
	engine.Strategy
	t      *testing.T
	cycles int
}

func (c *cycleChecker) Pick(d *engine.Decision) engine.GID {
	g, cycle := d.LockCycleWalksAgree()
	if g != engine.NoGoroutine {
		c.t.Fatalf("step %d: the walks from %v disagree on the lock cycle reached", d.Step, g)
	}
	if cycle {
		c.cycles++
	}
	return c.Strategy.Pick(d)
}

// TestLockCycleWalksAgree: the engine's walk of the waits for locks (Floyd's, which keeps no
// path) finds the same lock cycle, in the same order, as a walk that keeps its path, from
// every goroutine at every step, among philosophers (a ring of five mutexes, each taken with
// the next: cycles of up to five) and goroutines queued behind them on the ring's mutexes
// (chains into a cycle that do not belong to it).
func TestLockCycleWalksAgree(t *testing.T) {
	body := func(t *engine.T) {
		var forks [5]sync.Mutex
		for i := range forks {
			engine.Go(func() {
				engine.Lock(&forks[i], "p.go:1")
				engine.Lock(&forks[(i+1)%len(forks)], "p.go:2")
				engine.Unlock(&forks[(i+1)%len(forks)], "p.go:3")
				engine.Unlock(&forks[i], "p.go:4")
			}, "p.go:5")
			engine.Go(func() {
				engine.Lock(&forks[i], "p.go:6")
				engine.Unlock(&forks[i], "p.go:7")
			}, "p.go:8")
		}
	}
	c := &cycleChecker{Strategy: randomStrategy(5), t: t}
	rep := engine.Explore(body, engine.Config{Strategy: c, Schedules: 2000, KeepGoing: true})
	if rep.Buggy == 0 || c.cycles == 0 {
		t.Errorf("%d deadlocks in %d schedules, %d decisions with a lock cycle: want some of each", rep.Buggy, rep.Schedules, c.cycles)
	}
}

// bugOf returns the bug of the exploration's first buggy execution, nil when there is none: a
// result printed whole would print its trace.
func bugOf(rep *engine.Report) *engine.Bug {
	if rep.First == nil {
		return nil
	}
	return rep.First.Bug
}
