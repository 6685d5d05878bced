package engine_test

import (
	"slices"
	"sync"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// recurse calls itself depth times with a frame of over 128 bytes each.
//
//go:noinline
func recurse(depth int) byte {
	var pad [128]byte
	pad[depth%len(pad)] = byte(depth)
	if depth == 0 {
		return pad[0]
	}
	return recurse(depth-1) + pad[depth%len(pad)]
}

// stackMovesIn reports whether the calls of recurse(depth) made the runtime copy the calling
// goroutine's stack to a larger one: the address of a local variable changes then.
//
//go:noinline
func stackMovesIn(depth int) bool {
	var mark byte
	at := uintptr(unsafe.Pointer(&mark))
	recurse(depth)
	return uintptr(unsafe.Pointer(&mark)) != at
}

// TestGoroutinesOfAGoStatementWhoseStacksGrowStartLarger: the goroutines of a go statement go
// past their initial stack (recursions of about 1.5 KB) and have it copied in the first
// execution (each recurses as it starts, and none ends before all have: they wait for the
// test body, which waits until each has recursed); once the engine has seen two of them do
// so, the later ones of that statement start with a stack that holds the recursion. The goroutines of another go statement, which return at once, keep the initial
// stack: in the last execution, the same recursion grows theirs.
func TestGoroutinesOfAGoStatementWhoseStacksGrowStartLarger(t *testing.T) {
	if raceBuild {
		t.Skip("under the race detector every goroutine's stack grows before the recursion")
	}
	const (
		executions = 3
		goroutines = 4
		depth      = 10
	)
	var deepMoved [executions][]bool
	var shallowMoved []bool
	execution := -1
	body := func(*engine.T) {
		execution++
		var wg, recursed sync.WaitGroup
		release := engine.MakeChan[struct{}](0, "grow.go:7")
		engine.WGAdd(&wg, 2*goroutines, "grow.go:1")
		engine.WGAdd(&recursed, goroutines, "grow.go:8")
		for range goroutines {
			engine.Go(func() {
				deepMoved[execution] = append(deepMoved[execution], stackMovesIn(depth))
				engine.WGDone(&recursed, "grow.go:9")
				engine.Recv(release, "grow.go:10")
				engine.WGDone(&wg, "grow.go:2")
			}, "grow.go:3")
			engine.Go(func() {
				if execution == executions-1 {
					shallowMoved = append(shallowMoved, stackMovesIn(depth))
				}
				engine.WGDone(&wg, "grow.go:4")
			}, "grow.go:5")
		}
		engine.WGWait(&recursed, "grow.go:11")
		engine.Close(release, "grow.go:12")
		engine.WGWait(&wg, "grow.go:6")
	}
	rep := engine.Explore(body, engine.Config{Strategy: firstEnabled(), Schedules: executions})
	if rep.First != nil || rep.Err != nil {
		t.Fatalf("bug %v, error %v", rep.First, rep.Err)
	}
	want := [executions][]bool{
		{true, true, true, true}, // each recurses as it starts, and none ends before all have
		{false, false, false, false},
		{false, false, false, false},
	}
	if !slices.EqualFunc(deepMoved[:], want[:], slices.Equal) {
		t.Errorf("the recursing goroutines' stacks moved: %v, want %v", deepMoved, want)
	}
	if want := []bool{true, true, true, true}; !slices.Equal(shallowMoved, want) {
		t.Errorf("in the last execution, the other goroutines' stacks moved: %v, want %v", shallowMoved, want)
	}
}

// TestSchedulingPointsFitTheInitialStack: a goroutine that locks a mutex, writes, unlocks and
// signals a WaitGroup — the shape of a test's worker — does not outgrow the stack the runtime
// starts it with at its scheduling points (but rarely), under any member of the default
// portfolio and under the portfolio: the engine's frames and the strategy's deepest calls (a
// heap push under POS in batches, IDB's new node) fit in it, and copying a thousand
// goroutines' stacks to larger ones would double an execution's time. A thousand goroutines
// put POS in batches and PCT in its heap. A stack that moved is seen as the address of a local
// variable of the goroutine's function changing. (A goroutine of a test has frames of its own
// too, and may need a larger stack anyway: the engine then has it grow its stack as it
// starts, stackSite.)
func TestSchedulingPointsFitTheInitialStack(t *testing.T) {
	if raceBuild {
		t.Skip("under the race detector every goroutine's stack grows")
	}
	const goroutines = 1000
	// Goroutines that grew at their scheduling points would have the later ones grow their
	// stacks as they start, where the test cannot see it.
	defer engine.SetPregrowing(engine.SetPregrowing(false))
	for _, spec := range defaultSpecs() {
		t.Run(spec, func(t *testing.T) {
			s := newStrategy(t, spec)
			executions := 8
			if p, ok := s.(*strategy.Portfolio); ok {
				executions = 4 * len(p.Members())
			}
			// The first half are not counted: the engine's and the strategy's tables grow
			// from empty in them, which an allocation on the goroutine's stack does.
			moved, execution := 0, 0
			body := func(*engine.T) {
				execution++
				counted := execution > executions/2
				var mu sync.Mutex
				var wg sync.WaitGroup
				x := 0
				engine.WGAdd(&wg, goroutines, "fit.go:1")
				for range goroutines {
					engine.Go(func() {
						var mark byte
						at := uintptr(unsafe.Pointer(&mark))
						engine.Lock(&mu, "fit.go:2")
						engine.Write(unsafe.Pointer(&x), "fit.go:3")
						x++
						engine.Unlock(&mu, "fit.go:4")
						engine.WGDone(&wg, "fit.go:5")
						if counted && uintptr(unsafe.Pointer(&mark)) != at {
							moved++
						}
					}, "fit.go:6")
				}
				engine.WGWait(&wg, "fit.go:7")
			}
			rep := engine.Explore(body, engine.Config{Strategy: s, Schedules: executions, Races: true})
			if rep.First != nil || rep.Err != nil || rep.Schedules != executions {
				t.Fatalf("%d executions of %d, bug %v, error %v", rep.Schedules, executions, rep.First, rep.Err)
			}
			// A few do, where a table of the engine's or the strategy's grows (an append that
			// allocates, amortized over many steps): not one in ten.
			if counted := executions / 2 * goroutines; moved*10 > counted {
				t.Errorf("%d of the %d goroutines counted had their stacks copied to larger ones at their scheduling points", moved, counted)
			}
		})
	}
}
