package engine_test

import (
	"strconv"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// manyGoroutines starts n goroutines that each lock one mutex, write, unlock and signal a
// WaitGroup the body waits on: the shape of a worker pool's test, where every goroutine waits
// for the same mutex.
func manyGoroutines(n int) func(*engine.T) {
	return func(t *engine.T) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		x := 0
		engine.WGAdd(&wg, n, "m.go:1")
		for i := 0; i < n; i++ {
			engine.Go(func() {
				engine.Lock(&mu, "m.go:2")
				engine.Write(unsafe.Pointer(&x), "m.go:3")
				x++
				engine.Unlock(&mu, "m.go:4")
				engine.WGDone(&wg, "m.go:5")
			}, "m.go:6")
		}
		engine.WGWait(&wg, "m.go:7")
	}
}

// BenchmarkManyGoroutines is one execution of manyGoroutines, races detected, for 10, 1,000
// and 10,000 goroutines; ns/goroutine stays flat when the cost per goroutine does not grow with
// their number (issue 19: it does, through the waiters woken by each unlock and the vector
// clocks).
func BenchmarkManyGoroutines(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			engine.Explore(manyGoroutines(n), engine.Config{Strategy: strategy.NewRandom(1), Schedules: b.N, Races: true})
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/goroutine")
		})
	}
}

// limitedGroup is errgroup's TestGoLimit in the engine's API: the body starts 1,025 goroutines,
// at most 10 at a time (a semaphore channel of capacity 10 it sends to before each go
// statement), each of which adds to a counter, sleeps a microsecond, subtracts, and frees its
// slot: many goroutines over the execution, few at once.
func limitedGroup(t *engine.T) {
	const limit, n = 10, 1025
	sem := engine.MakeChan[struct{}](limit, "l.go:1")
	var wg sync.WaitGroup
	var active int32
	for i := 0; i < n; i++ {
		engine.Send(sem, struct{}{}, "l.go:2")
		engine.WGAdd(&wg, 1, "l.go:3")
		engine.Go(func() {
			engine.AtomicAddInt32(&active, 1, "l.go:4")
			engine.Sleep(time.Microsecond, "l.go:5")
			engine.AtomicAddInt32(&active, -1, "l.go:6")
			engine.Recv(sem, "l.go:7")
			engine.WGDone(&wg, "l.go:8")
		}, "l.go:9")
	}
	engine.WGWait(&wg, "l.go:10")
}

// BenchmarkLimitedGroup is one execution of limitedGroup, races detected.
func BenchmarkLimitedGroup(b *testing.B) {
	engine.Explore(limitedGroup, engine.Config{Strategy: strategy.NewRandom(1), Schedules: b.N, Races: true})
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1025, "ns/goroutine")
}

// BenchmarkManyGoroutinesByStrategy is BenchmarkManyGoroutines and BenchmarkLimitedGroup under
// each member of the default portfolio, and under the portfolio itself (interleave test's
// default strategy): a strategy's own work per step must not grow with the number of
// goroutines either.
func BenchmarkManyGoroutinesByStrategy(b *testing.B) {
	bodies := []struct {
		name string
		n    int
		body func(*engine.T)
	}{
		{"1000", 1000, manyGoroutines(1000)},
		{"10000", 10000, manyGoroutines(10000)},
		{"limited1025", 1025, limitedGroup},
	}
	for _, spec := range defaultSpecs() {
		for _, bd := range bodies {
			b.Run(spec+"/"+bd.name, func(b *testing.B) {
				s := newStrategy(b, spec)
				// An op of the portfolio's is as many executions as it has members, which it shares
				// among them.
				executions := b.N
				if p, ok := s.(*strategy.Portfolio); ok {
					executions *= len(p.Members())
				}
				rep := engine.Explore(bd.body, engine.Config{Strategy: s, Schedules: executions, Races: true})
				if rep.Schedules != executions || rep.Err != nil {
					b.Fatalf("%d executions of %d, error %v", rep.Schedules, executions, rep.Err)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(executions)/float64(bd.n), "ns/goroutine")
			})
		}
	}
}
