package engine_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
)

// summary is testdata/fidelity/handoff on the engine's API: Flush locks the summary and hands
// the batch to loop, which sums it (work: batch atomic adds) and then unlocks the mutex Flush
// locked. Go lets one goroutine Lock a sync.Mutex and another Unlock it; the program passes
// go test -race.
func summary(batch int) func(*engine.T) {
	return func(t *engine.T) {
		var mu sync.Mutex
		var sum int64
		batches := engine.MakeChan[int](0, "s.go:1")
		done := engine.MakeChan[struct{}](0, "s.go:2")
		engine.Go(func() {
			for {
				n, ok := engine.Recv2(batches, "s.go:4")
				if !ok {
					break
				}
				for range n {
					engine.AtomicAddInt64(&sum, 1, "s.go:5")
				}
				engine.Unlock(&mu, "s.go:6") // the mutex Flush locked
			}
			engine.Close(done, "s.go:7")
		}, "s.go:3")
		flush := func() {
			engine.Lock(&mu, "s.go:8")
			engine.Send(batches, batch, "s.go:9")
		}
		var wg sync.WaitGroup
		for range 2 {
			engine.WGAdd(&wg, 1, "s.go:10")
			engine.Go(func() {
				flush()
				flush() // blocks while loop sums the first batch: loop will unlock
				engine.WGDone(&wg, "s.go:11")
			}, "s.go:12")
		}
		engine.WGWait(&wg, "s.go:13")
		engine.Lock(&mu, "s.go:14")
		engine.Close(batches, "s.go:15")
		engine.Recv(done, "s.go:16")
		if got := engine.AtomicLoadInt64(&sum, "s.go:17"); got != int64(4*batch) {
			t.Errorf("sum = %d, want %d", got, 4*batch)
		}
	}
}

// TestMutexUnlockedByAnotherGoroutine: a mutex locked by one goroutine and unlocked by another
// is no lock cycle while the goroutine that will unlock it runs: "G2 waits for the mutex G2
// holds" was reported as a deadlock once loop had summed for longer than the cycle's grace (in
// 152 of these 300 schedules). A goroutine that locks a mutex it locked, having passed nothing
// on since, while a ticker runs on, is still the deadlock it is; and so is a lock-order cycle
// (TestLockCycleWhileOthersRun). An RWMutex locked and unlocked by different goroutines is
// nothing either.
func TestMutexUnlockedByAnotherGoroutine(t *testing.T) {
	relock := func(t *engine.T) {
		var mu sync.Mutex
		tk := engine.NewTicker(time.Millisecond, "r.go:1")
		engine.Go(func() {
			for {
				engine.Recv(tk.C, "r.go:3")
			}
		}, "r.go:2")
		engine.Go(func() {
			engine.Lock(&mu, "r.go:5")
			engine.Lock(&mu, "r.go:6") // nothing passed on: nobody else can unlock mu
		}, "r.go:4")
		for {
			engine.Gosched("r.go:7")
		}
	}
	rwHandoff := func(t *engine.T) {
		var rw sync.RWMutex
		var n int64
		held := engine.MakeChan[int](0, "w.go:1")
		engine.Go(func() {
			for range 2 {
				k := engine.Recv(held, "w.go:3")
				for range k {
					engine.AtomicAddInt64(&n, 1, "w.go:4")
				}
				engine.RWUnlock(&rw, "w.go:5")
			}
		}, "w.go:2")
		engine.Go(func() {
			engine.RLock(&rw, "w.go:7")
			engine.RUnlock(&rw, "w.go:8")
		}, "w.go:6")
		for range 2 {
			engine.RWLock(&rw, "w.go:9")
			engine.Send(held, 1500, "w.go:10")
		}
		engine.RWLock(&rw, "w.go:11")
	}
	tests := []struct {
		name string
		body func(*engine.T)
		want engine.BugKind
		msg  string
	}{
		{name: "a mutex unlocked by the goroutine it was handed to", body: summary(4000)},
		{name: "an RWMutex unlocked by the goroutine it was handed to", body: rwHandoff},
		{name: "a goroutine relocking a mutex it passed nowhere", body: relock, want: engine.Deadlock,
			msg: "1 goroutines wait for each other's locks, while others go on:\n\tG2 lock at r.go:6 (the mutex G2 locked)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := engine.Explore(tt.body, engine.Config{Strategy: randomStrategy(11), Schedules: 300, MaxSteps: 50_000, KeepGoing: true})
			if rep.Err != nil || len(rep.Limitations) > 0 {
				t.Fatalf("exploration stopped: %v %v", rep.Err, rep.Limitations)
			}
			var got engine.BugKind
			if rep.First != nil {
				got = rep.First.Bug.Kind
			}
			if got != tt.want || (tt.msg != "" && !strings.Contains(rep.First.Bug.Message, tt.msg)) {
				t.Fatalf("%d buggy of %d schedules, first %v: want kind %q %q", rep.Buggy, rep.Schedules, bugOf(rep), tt.want, tt.msg)
			}
			if tt.want == "" && (rep.StepBound != 0 || rep.Background != nil) {
				t.Errorf("%d at the step bound, background %v: want neither", rep.StepBound, rep.Background)
			}
		})
	}
}
