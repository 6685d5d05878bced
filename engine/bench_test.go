package engine_test

import (
	"testing"
	"time"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
)

// The benchmarks of the performance contract (DESIGN.md): the raw handoff the scheduler is
// built on, a scheduling point that does not switch, one that does, and a whole execution of a
// small program next to its floor. BenchmarkRatios reports the ratios measured in one run.

// handoffs makes 2n raw handoffs between two goroutines through per-goroutine wake channels.
func handoffs(n int) {
	a, c := make(chan struct{}, 1), make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		for i := 0; i < n; i++ {
			<-c
			a <- struct{}{}
		}
		close(done)
	}()
	for i := 0; i < n; i++ {
		c <- struct{}{}
		<-a
	}
	<-done
}

// BenchmarkHandoff is the raw cost of handing control from one goroutine to another through
// per-goroutine wake channels, with nothing else: the floor of a switch.
func BenchmarkHandoff(b *testing.B) {
	handoffs(b.N)
	// Each iteration is two handoffs (there and back).
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/handoff")
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
	return d.EnabledAt(0)
}

// alwaysSwitch switches to the next enabled goroutine in id order at every step.
type alwaysSwitch struct{ keepRunning }

func (alwaysSwitch) Pick(d *engine.Decision) engine.GID {
	for _, g := range d.Enabled() {
		if g > d.Last {
			return g
		}
	}
	return d.EnabledAt(0)
}

// pointsPerExecution is the size of the executions in which points are measured: large enough
// to amortize starting an execution, small enough that the trace is reused as in real runs.
const pointsPerExecution = 1000

// points runs about n scheduling points under s, in executions of pointsPerExecution points;
// with two goroutines, each point switches under alwaysSwitch. It returns the points run.
func points(n int, s engine.Strategy, goroutines int) int {
	var x int
	per := pointsPerExecution / goroutines
	rep := engine.Explore(func(t *engine.T) {
		if goroutines == 2 {
			engine.Go(func() {
				for i := 0; i < per; i++ {
					engine.Read(unsafe.Pointer(&x), "bench.go:2")
				}
			}, "bench.go:3")
		}
		for i := 0; i < per; i++ {
			engine.Read(unsafe.Pointer(&x), "bench.go:4")
		}
	}, engine.Config{Strategy: s, Schedules: (n + pointsPerExecution - 1) / pointsPerExecution})
	return rep.Schedules * rep.MaxSteps
}

// BenchmarkPointNoSwitch is a scheduling point at which the running goroutine goes on.
func BenchmarkPointNoSwitch(b *testing.B) {
	n := points(b.N, keepRunning{}, 1)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/point")
}

// BenchmarkPointSwitch is a scheduling point at which control passes to another goroutine.
func BenchmarkPointSwitch(b *testing.B) {
	n := points(b.N, alwaysSwitch{}, 2)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/point")
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

// executions runs n whole executions of smallProgram with alwaysSwitch.
func executions(n int) *engine.Report {
	return engine.Explore(smallProgram, engine.Config{Strategy: alwaysSwitch{}, Schedules: n})
}

// BenchmarkExecution is one whole execution of smallProgram, explored with alwaysSwitch.
func BenchmarkExecution(b *testing.B) {
	rep := executions(b.N)
	if rep.First != nil {
		b.Fatal(rep.First.Bug)
	}
	b.ReportMetric(float64(rep.MaxSteps), "steps/exec")
}

// floors does n times what an execution of smallProgram costs at least: starting the same
// goroutines and making the same number of switches with raw handoffs.
func floors(n int) {
	const goroutines, rounds = 3, 8 // 4 participants in a ring: 32 switches
	for i := 0; i < n; i++ {
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

// BenchmarkExecutionFloor is the floor of BenchmarkExecution.
func BenchmarkExecutionFloor(b *testing.B) { floors(b.N) }

// BenchmarkRatios reports the ratios of the performance contract, measured in this one run
// (run it with -benchtime=1x): switch/handoff (target ≤ 1.5), the no-switch point in ns
// (target ≤ 20), and execution/floor (target ≤ 4).
func BenchmarkRatios(b *testing.B) {
	perOp := func(ops int, f func()) float64 {
		start := time.Now()
		f()
		return float64(time.Since(start).Nanoseconds()) / float64(ops)
	}
	const n = 1_000_000
	handoff := perOp(2*n, func() { handoffs(n) })
	var noSwitchPoints, switchPoints int
	noSwitch := perOp(n, func() { noSwitchPoints = points(n, keepRunning{}, 1) }) * float64(n) / float64(noSwitchPoints)
	switched := perOp(n, func() { switchPoints = points(n, alwaysSwitch{}, 2) }) * float64(n) / float64(switchPoints)
	exec := perOp(n/100, func() { executions(n / 100) })
	floor := perOp(n/100, func() { floors(n / 100) })
	b.ReportMetric(handoff, "handoff-ns")
	b.ReportMetric(noSwitch, "point-noswitch-ns")
	b.ReportMetric(switched, "point-switch-ns")
	b.ReportMetric(switched/handoff, "switch/handoff")
	b.ReportMetric(exec/1000, "exec-µs")
	b.ReportMetric(exec/floor, "exec/floor")
}

// accessSink keeps the plain loads of BenchmarkRaceDetector from being optimized away.
var accessSink int

// accesses runs about n instrumented reads and writes (one write in four) over 64 words, in
// executions of pointsPerExecution accesses, with the given points and detector settings. It
// returns the accesses run.
func accesses(n int, points engine.Points, races bool) int {
	var words [64]int
	per := pointsPerExecution
	rep := engine.Explore(func(t *engine.T) {
		for i := 0; i < per; i++ {
			p := &words[i&63]
			if i&3 == 0 {
				engine.Write(unsafe.Pointer(p), "bench.go:20")
				*p = i
			} else {
				engine.Read(unsafe.Pointer(p), "bench.go:21")
				accessSink += *p
			}
		}
	}, engine.Config{Strategy: keepRunning{}, Schedules: (n + per - 1) / per, Points: points, Races: races})
	return rep.Schedules * per
}

// BenchmarkRaceDetector reports, measured in this one run (use -benchtime=1x), the cost of an
// instrumented access under each configuration next to a plain access: not a scheduling
// point and no detector (the call alone), an access that is not among the racy points (points
// "racy", the default, no racy access known), a scheduling point that does not switch, the
// detector alone (points "sync"), and both (points "all" with the detector).
func BenchmarkRaceDetector(b *testing.B) {
	const n = 2_000_000
	perOp := func(f func() int) float64 {
		start := time.Now()
		ops := f()
		return float64(time.Since(start).Nanoseconds()) / float64(ops)
	}
	var words [64]int
	plain := perOp(func() int {
		for i := 0; i < n; i++ {
			if i&3 == 0 {
				words[i&63] = i
			} else {
				accessSink += words[i&63]
			}
		}
		return n
	})
	call := perOp(func() int { return accesses(n, engine.PointsSync, false) })
	notRacy := perOp(func() int { return accesses(n, engine.PointsRacy, false) })
	point := perOp(func() int { return accesses(n, engine.PointsAll, false) })
	detector := perOp(func() int { return accesses(n, engine.PointsSync, true) })
	both := perOp(func() int { return accesses(n, engine.PointsAll, true) })
	b.ReportMetric(plain, "plain-ns")
	b.ReportMetric(call, "call-ns")
	b.ReportMetric(notRacy, "not-racy-ns")
	b.ReportMetric(point, "point-ns")
	b.ReportMetric(detector, "detector-ns")
	b.ReportMetric(both, "point+detector-ns")
	b.ReportMetric(detector/point, "detector/point")
}
