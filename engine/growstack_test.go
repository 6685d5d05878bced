package engine_test

import (
	"slices"
	"sync"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
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
// execution (each recurses as it starts, before any has ended); once the engine has seen two
// of them do so, the later ones of that statement start with a stack that holds the
// recursion. The goroutines of another go statement, which return at once, keep the initial
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
		var wg sync.WaitGroup
		engine.WGAdd(&wg, 2*goroutines, "grow.go:1")
		for range goroutines {
			engine.Go(func() {
				deepMoved[execution] = append(deepMoved[execution], stackMovesIn(depth))
				engine.WGDone(&wg, "grow.go:2")
			}, "grow.go:3")
			engine.Go(func() {
				if execution == executions-1 {
					shallowMoved = append(shallowMoved, stackMovesIn(depth))
				}
				engine.WGDone(&wg, "grow.go:4")
			}, "grow.go:5")
		}
		engine.WGWait(&wg, "grow.go:6")
	}
	rep := engine.Explore(body, engine.Config{Strategy: firstEnabled(), Schedules: executions})
	if rep.First != nil || rep.Err != nil {
		t.Fatalf("bug %v, error %v", rep.First, rep.Err)
	}
	want := [executions][]bool{
		{true, true, true, true}, // each recurses as it starts, before any has ended
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
