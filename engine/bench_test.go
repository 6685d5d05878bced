package engine_test

import (
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
)

// The benchmarks of the performance contract (DESIGN.md): the raw handoff the scheduler is
// built on, a scheduling point that does not switch, one that does, and a whole execution of a
// small program next to its floor. BenchmarkRatios reports the ratios measured in one run.

// BenchmarkHandoff is the raw cost of handing control from one goroutine to another through
// per-goroutine wake channels, with nothing else: the floor of a switch.
func BenchmarkHandoff(b *testing.B) {
	a, c := make(chan struct{}, 1), make(chan struct{}, 1)
	done := make(chan struct{})
	n := b.N
	go func() {
		for i := 0; i < n; i++ {
			<-c
			a <- struct{}{}
		}
		close(done)
	}()
	b.ResetTimer()
	for i := 0; i < n; i++ {
		c <- struct{}{}
		<-a
	}
	<-done
	// Each iteration is two handoffs (there and back).
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*n), "ns/handoff")
}

// keepRunning never switches unless it must.
type keepRunning struct{}

func (keepRunning) Name() string              { return "keep" }
func (keepRunning) Params() map[string]string { return nil }
func (keepRunning) Begin() bool               { return true }
func (keepRunning) Choose(*engine.Choice) int { return 0 }
func (keepRunning) End(*engine.Result)        {}
func (keepRunning) Pick(d *engine.Decision) engine.GID {
	if d.LastEnabled {
		return d.Last
	}
	return d.Enabled[0]
}

// alwaysSwitch switches to the next enabled goroutine in id order at every step.
type alwaysSwitch struct{ keepRunning }

func (alwaysSwitch) Pick(d *engine.Decision) engine.GID {
	for _, g := range d.Enabled {
		if g > d.Last {
			return g
		}
	}
	return d.Enabled[0]
}

// pointsPerExecution is the size of the executions in which points are measured: large enough
// to amortize starting an execution, small enough that the trace is reused as in real runs.
const pointsPerExecution = 1000

// explorePoints runs about n scheduling points, in executions of pointsPerExecution points,
// and reports the time per point.
func explorePoints(b *testing.B, s engine.Strategy, body func(*engine.T)) {
	b.ResetTimer()
	rep := engine.Explore(body, engine.Config{Strategy: s, Schedules: (b.N + pointsPerExecution - 1) / pointsPerExecution})
	if rep.First != nil {
		b.Fatal(rep.First.Bug)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(rep.Schedules*rep.MaxSteps), "ns/point")
}

// BenchmarkPointNoSwitch is a scheduling point at which the running goroutine goes on.
func BenchmarkPointNoSwitch(b *testing.B) {
	var x int
	explorePoints(b, keepRunning{}, func(t *engine.T) {
		for i := 0; i < pointsPerExecution; i++ {
			engine.Read(unsafe.Pointer(&x), "bench.go:1")
		}
	})
}

// BenchmarkPointSwitch is a scheduling point at which control passes to another goroutine.
func BenchmarkPointSwitch(b *testing.B) {
	var x int
	explorePoints(b, alwaysSwitch{}, func(t *engine.T) {
		engine.Go(func() {
			for i := 0; i < pointsPerExecution/2; i++ {
				engine.Read(unsafe.Pointer(&x), "bench.go:2")
			}
		}, "bench.go:3")
		for i := 0; i < pointsPerExecution/2; i++ {
			engine.Read(unsafe.Pointer(&x), "bench.go:4")
		}
	})
}

// smallProgram has 4 goroutines (the body and 3 it starts) and, under alwaysSwitch, about 30
// switches.
func smallProgram(t *engine.T) {
	var x int
	for i := 0; i < 3; i++ {
		engine.Go(func() {
			for j := 0; j < 9; j++ {
				engine.Write(unsafe.Pointer(&x), "bench.go:10")
				x++
			}
		}, "bench.go:11")
	}
}

// BenchmarkExecution is one whole execution of smallProgram, explored with alwaysSwitch.
func BenchmarkExecution(b *testing.B) {
	rep := engine.Explore(smallProgram, engine.Config{Strategy: alwaysSwitch{}, Schedules: b.N})
	if rep.First != nil {
		b.Fatal(rep.First.Bug)
	}
	b.ReportMetric(float64(rep.MaxSteps), "steps/exec")
}

// BenchmarkExecutionFloor is what BenchmarkExecution costs at least: starting the same
// goroutines and making the same number of switches with raw handoffs.
func BenchmarkExecutionFloor(b *testing.B) {
	const goroutines, rounds = 3, 8 // 4 participants in a ring: 32 switches
	for i := 0; i < b.N; i++ {
		wakes := make([]chan struct{}, goroutines+1)
		for k := range wakes {
			wakes[k] = make(chan struct{}, 1)
		}
		done := make(chan struct{}, goroutines)
		for k := 1; k <= goroutines; k++ {
			go func() {
				for r := 0; r < rounds; r++ {
					<-wakes[k]
					wakes[(k+1)%(goroutines+1)] <- struct{}{}
				}
				done <- struct{}{}
			}()
		}
		for r := 0; r < rounds; r++ {
			wakes[1] <- struct{}{}
			<-wakes[0]
		}
		for k := 0; k < goroutines; k++ {
			<-done
		}
	}
}

// BenchmarkRatios runs the benchmarks above and reports the ratios of the performance
// contract, measured in this one run: switch/handoff (target ≤ 1.5), the no-switch point in
// ns (target ≤ 20), and execution/floor (target ≤ 4).
func BenchmarkRatios(b *testing.B) {
	if b.N > 1 {
		b.Skip("BenchmarkRatios runs its own measurements once; use -benchtime=1x")
	}
	per := func(f func(*testing.B)) float64 {
		r := testing.Benchmark(f)
		return float64(r.T.Nanoseconds()) / float64(r.N)
	}
	metric := func(f func(*testing.B), unit string) float64 {
		return testing.Benchmark(f).Extra[unit]
	}
	handoff := metric(BenchmarkHandoff, "ns/handoff")
	noSwitch := metric(BenchmarkPointNoSwitch, "ns/point")
	switched := metric(BenchmarkPointSwitch, "ns/point")
	exec := per(BenchmarkExecution)
	floor := per(BenchmarkExecutionFloor)
	b.ReportMetric(handoff, "handoff-ns")
	b.ReportMetric(noSwitch, "point-noswitch-ns")
	b.ReportMetric(switched, "point-switch-ns")
	b.ReportMetric(switched/handoff, "switch/handoff")
	b.ReportMetric(exec/1000, "exec-µs")
	b.ReportMetric(exec/floor, "exec/floor")
}
