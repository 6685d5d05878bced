package engine_test

import (
	"strconv"
	"sync"
	"testing"
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
