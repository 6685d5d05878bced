package engine_test

import (
	"sync/atomic"
	"testing"

	"github.com/interleave-dev/interleave/engine"
)

// BenchmarkAtomicNoSwitch is an atomic operation (a scheduling point at which the running
// goroutine goes on, then the operation), under a strategy that does not observe the atomic
// variables: what every program with atomics pays.
func BenchmarkAtomicNoSwitch(b *testing.B) {
	var x atomic.Int32
	rep := engine.Explore(func(t *engine.T) {
		for i := 0; i < pointsPerExecution; i++ {
			engine.AtomicInt32Add(&x, 1, "bench.go:20")
		}
	}, engine.Config{Strategy: keepRunning{}, Schedules: (b.N + pointsPerExecution - 1) / pointsPerExecution})
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rep.Schedules*rep.MaxSteps), "ns/point")
}
