package strategy_test

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// The positions of the programs below are the statement labels of SCTBench's figures, so a
// recorded schedule reads like the paper's: "abde".

// figure1 is SCTBench's Figure 1: T0 creates T1, T2, T3 in one step; T1 runs b) x=1 and
// c) y=1, T2 d) z=1, T3 e) assert(x==y). Every labelled statement is one step, a goroutine
// with no statements left is disabled, and an assertion failure ends the schedule.
func figure1(t *engine.T) {
	var x, y, z int
	t1 := func() {
		engine.Write(unsafe.Pointer(&x), "b")
		x = 1
		engine.Write(unsafe.Pointer(&y), "c")
		y = 1
	}
	t2 := func() {
		engine.Write(unsafe.Pointer(&z), "d")
		z = 1
	}
	t3 := func() {
		engine.Read(unsafe.Pointer(&x), "e")
		if x != y {
			panic("assertion failed: x == y")
		}
	}
	engine.GoAll([]func(){t1, t2, t3}, "a")
}

// figure2 is SCTBench's Figure 2: T2's statements are replaced by T1's, f) x=1 g) y=1.
func figure2(t *engine.T) {
	var x, y int
	t1 := func() {
		engine.Write(unsafe.Pointer(&x), "b")
		x = 1
		engine.Write(unsafe.Pointer(&y), "c")
		y = 1
	}
	t2 := func() {
		engine.Write(unsafe.Pointer(&x), "f")
		x = 1
		engine.Write(unsafe.Pointer(&y), "g")
		y = 1
	}
	t3 := func() {
		engine.Read(unsafe.Pointer(&x), "e")
		if x != y {
			panic("assertion failed: x == y")
		}
	}
	engine.GoAll([]func(){t1, t2, t3}, "a")
}

// straightLine returns a program whose body starts goroutines in one step; goroutine i
// (G(i+1)) executes steps[i] writes to its own variable, labelled "<i>.<j>".
func straightLine(steps ...int) func(*engine.T) {
	return func(t *engine.T) {
		vars := make([]int, len(steps))
		fs := make([]func(), len(steps))
		for i, n := range steps {
			fs[i] = func() {
				for j := 0; j < n; j++ {
					engine.Write(unsafe.Pointer(&vars[i]), labels[i][j])
					vars[i]++
				}
			}
		}
		engine.GoAll(fs, "go")
	}
}

var labels = func() [][]string {
	out := make([][]string, 8)
	for i := range out {
		for j := 0; j < 8; j++ {
			out[i] = append(out[i], fmt.Sprintf("%d.%d", i, j))
		}
	}
	return out
}()

// spinWait is a busy-wait loop with a yield: the body waits for its goroutines to set their
// flags. With spinners > 0, further goroutines spin too, waiting for the same flag.
func spinWait(setters, spinners int) func(*engine.T) {
	return func(t *engine.T) {
		var mu sync.Mutex
		done := 0
		spin := func(want int) {
			for {
				engine.Lock(&mu, "spin.lock")
				d := done
				engine.Unlock(&mu, "spin.unlock")
				if d >= want {
					return
				}
				engine.Gosched("spin.yield")
			}
		}
		var fs []func()
		for i := 0; i < spinners; i++ {
			fs = append(fs, func() { spin(setters) })
		}
		for i := 0; i < setters; i++ {
			fs = append(fs, func() {
				engine.Lock(&mu, "set.lock")
				done++
				engine.Unlock(&mu, "set.unlock")
			})
		}
		engine.GoAll(fs, "go")
		spin(setters)
	}
}

// run is one explored execution as the tests see it.
type run struct {
	labels string // the positions of the goroutine steps, joined with " "
	gs     string // the goroutines of the steps
	bug    bool
	bound  int // the strategy's bound during the execution (systematic strategies)
	cost   int // and the execution's cost
	preemp int // the engine's count of preemptions
}

// explore runs body under s until exhaustion (or limit executions) and returns every run.
func explore(t *testing.T, body func(*engine.T), s engine.Strategy, limit int) ([]run, *engine.Report) {
	t.Helper()
	var runs []run
	rep := engine.Explore(body, engine.Config{
		Strategy:  s,
		KeepGoing: true,
		Record:    true,
		Schedules: limit,
		MaxSteps:  10_000,
		OnExecution: func(n int, r *engine.Result) {
			var ls, gs []string
			for _, st := range r.Schedule {
				if st.Kind == schedule.Run {
					ls = append(ls, st.Pos)
					gs = append(gs, fmt.Sprint(st.G))
				} else {
					ls = append(ls, fmt.Sprintf("[%d/%d]", st.Value, st.N))
				}
			}
			x := run{labels: strings.Join(ls, " "), gs: strings.Join(gs, ""), bug: r.Bug != nil, preemp: r.Preemptions}
			if sy, ok := s.(interface{ Bound() int }); ok {
				x.bound = sy.Bound()
			}
			if sy, ok := s.(interface{ Cost() int }); ok {
				x.cost = sy.Cost()
			}
			runs = append(runs, x)
		},
	})
	if rep.Err != nil {
		t.Fatalf("%s: %v", s.Name(), rep.Err)
	}
	return runs, rep
}

// compact turns "a b e" into "abe" for the one-letter labels of the figures.
func compact(r run) string { return strings.ReplaceAll(r.labels, " ", "") }

func set(runs []run, key func(run) string) []string {
	var out []string
	for _, r := range runs {
		out = append(out, key(r))
	}
	sort.Strings(out)
	return out
}
