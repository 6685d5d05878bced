package harness_test

import (
	"flag"
	"regexp"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/harness"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// smallProgram has 4 goroutines (the body and 3 it starts) writing one variable, as the
// engine's BenchmarkExecution's, and calls the test handle's methods a test typically does
// once an execution: h stands for t.
func smallProgram(h harness.T) {
	h.Helper()
	var x int
	for i := 0; i < 3; i++ {
		engine.Go(func() {
			for j := 0; j < 9; j++ {
				engine.Write(unsafe.Pointer(&x), "bench.go:10")
				x++
			}
		}, "bench.go:11")
	}
	h.Cleanup(func() {})
	if h.Failed() || h.Name() == "" {
		h.Fatal("unreachable")
	}
}

// explore runs n executions of body under a seeded random walk and returns the time per
// execution.
func explore(tb testing.TB, n int, body func(*engine.T)) time.Duration {
	s, err := strategy.New("random", nil, 1)
	if err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	rep := engine.Explore(body, engine.Config{Strategy: s, Schedules: n, Name: "TestSmall"})
	d := time.Since(start)
	if rep.First != nil {
		tb.Fatalf("bug: %v", rep.First.Bug)
	}
	return d / time.Duration(rep.Schedules)
}

// withT runs f with the real *testing.T of a test of its own (a benchmark has none): the
// testing package runs the tests -test.run selects, so it selects that one meanwhile.
func withT(f func(t *testing.T)) {
	run := flag.Lookup("test.run")
	prev := run.Value.String()
	run.Value.Set("^TestSmall$")
	defer run.Value.Set(prev)
	testing.RunTests(func(pat, str string) (bool, error) { return regexp.MatchString(pat, str) },
		[]testing.InternalTest{{Name: "TestSmall", F: f}})
}

// BenchmarkTestHandle measures, in one run (use -benchtime=1x), the cost of an execution of a
// small test whose body takes
//   - engine-T: the engine's per-schedule T itself (the body of an instrumented test before
//     issue 46: *testing.T rewritten to the harness's type);
//   - testing-T: the test's own *testing.T, bound to the execution by harness.Body, its methods
//     called through harness.OfT (the body of an instrumented test now);
//   - child-T: the same plus a subtest of the real testing package per execution (t.Run of an
//     empty function: the least that running every execution as a hidden subtest costs, the
//     design not taken);
//
// and the ratios testing-T/engine-T and child-T/engine-T: the medians over rounds of 2,000
// executions of each, run in turn.
func BenchmarkTestHandle(b *testing.B) {
	const n, rounds = 2000, 25
	engineBody := func(t *engine.T) { smallProgram(t) }
	var engineT, testingT, childT, testingRatio, childRatio []float64
	withT(func(t *testing.T) {
		testingBody := harness.Body(t, func(t *testing.T) { smallProgram(harness.OfT(t)) })
		childBody := harness.Body(t, func(t *testing.T) {
			t.Run("execution", func(*testing.T) {})
			smallProgram(harness.OfT(t))
		})
		// A round of each first (the first explorations of a process grow its tables and
		// stacks); then rounds of each taken in turn, so that the load of the machine, which
		// changes over the run, weighs on the three alike: the ratios are those of each round.
		for i := 0; i <= rounds; i++ {
			e, tt, c := explore(t, n, engineBody), explore(t, n, testingBody), explore(t, n, childBody)
			if i > 0 {
				engineT, testingT, childT = append(engineT, us(e)), append(testingT, us(tt)), append(childT, us(c))
				testingRatio, childRatio = append(testingRatio, float64(tt)/float64(e)), append(childRatio, float64(c)/float64(e))
			}
		}
	})
	b.ReportMetric(median(engineT), "engine-T-µs/exec")
	b.ReportMetric(median(testingT), "testing-T-µs/exec")
	b.ReportMetric(median(childT), "child-T-µs/exec")
	b.ReportMetric(median(testingRatio), "testing-T/engine-T")
	b.ReportMetric(median(childRatio), "child-T/engine-T")
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestHandleResolution checks what the hooks give: the execution's T for the test's own
// *testing.T, the subtest's T in a subtest's goroutine, the value itself for anything else.
func TestHandleResolution(t *testing.T) {
	var root, sub, other, outside any
	var inGoroutine string
	explore(t, 1, harness.Body(t, func(tt *testing.T) {
		root = harness.OfT(tt)
		harness.RunOf(tt)("sub", func(st *testing.T) {
			sub = harness.OfT(st)
			done := engine.MakeChan[struct{}](0, "x.go:1")
			engine.Go(func() {
				inGoroutine = harness.OfTB(st).Name()
				engine.Close(done, "x.go:2")
			}, "x.go:3")
			engine.Recv(done, "x.go:4")
		})
		other = harness.Of[interface{ Helper() }](&testing.B{})
	}))
	outside = harness.OfT(&testing.T{})
	if _, ok := root.(*engine.T); !ok {
		t.Errorf("OfT(t) in the body = %T, want *engine.T", root)
	}
	if s, ok := sub.(*engine.T); !ok || s.Name() != "TestSmall/sub" {
		t.Errorf("OfT(t) in the subtest = %T %v, want the subtest's *engine.T", sub, sub)
	}
	if inGoroutine != "TestSmall/sub" {
		t.Errorf("OfTB(t).Name() in a goroutine of the subtest = %q, want TestSmall/sub", inGoroutine)
	}
	if _, ok := other.(*testing.B); !ok {
		t.Errorf("Of(a *testing.B) = %T, want the *testing.B", other)
	}
	if _, ok := outside.(*testing.T); !ok {
		t.Errorf("OfT(a *testing.T not under control) = %T, want the *testing.T", outside)
	}
}
