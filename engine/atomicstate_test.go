package engine_test

import (
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
)

// observer is firstEnabled that observes the atomic variables and records their state at
// each decision.
type observer struct {
	*funcStrategy
	observe bool
	states  []uint64
}

func (o *observer) ObservesAtomics() bool { return o.observe }

func (o *observer) Pick(d *engine.Decision) engine.GID {
	o.states = append(o.states, d.AtomicState())
	return o.funcStrategy.Pick(d)
}

// atomicStates runs body, whose test goroutine alone makes four atomic operations, and
// returns the states at the decisions after the first three: after op0, op1 and op2.
func atomicStates(t *testing.T, observe bool, body func()) []uint64 {
	t.Helper()
	o := &observer{funcStrategy: firstEnabled(), observe: observe}
	res := engine.Run(func(*engine.T) { body() }, o, engine.Config{})
	if res.Bug != nil || res.Err != nil {
		t.Fatalf("bug %v, err %v", res.Bug, res.Err)
	}
	if len(o.states) != 4 {
		t.Fatalf("%d decisions, want 4", len(o.states))
	}
	return o.states[1:]
}

// TestAtomicState: the state is the atomic variables' values, read as each type of
// sync/atomic keeps it. Each program writes x, then y, then x again to one variable, then
// reads it: the states after the two writes of x are equal, and the state after y differs
// from them exactly when the state tells x and y apart.
func TestAtomicState(t *testing.T) {
	one, two := 1, 2
	for _, tc := range []struct {
		name   string
		body   func()
		differ bool
	}{
		{"Int32", func() {
			var v atomic.Int32
			engine.AtomicInt32Store(&v, 1, "a.go:1")
			engine.AtomicInt32Store(&v, 2, "a.go:2")
			engine.AtomicInt32CompareAndSwap(&v, 2, 1, "a.go:3")
			engine.AtomicInt32Load(&v, "a.go:4")
		}, true},
		{"Int64 by functions", func() {
			var v int64
			engine.AtomicStoreInt64(&v, 1<<40, "a.go:1")
			engine.AtomicAddInt64(&v, 1, "a.go:2")
			engine.AtomicSwapInt64(&v, 1<<40, "a.go:3")
			engine.AtomicLoadInt64(&v, "a.go:4")
		}, true},
		{"Uint64 high word", func() {
			var v atomic.Uint64
			engine.AtomicUint64Store(&v, 1<<40, "a.go:1")
			engine.AtomicUint64Store(&v, 2<<40, "a.go:2")
			engine.AtomicUint64Store(&v, 1<<40, "a.go:3")
			engine.AtomicUint64Load(&v, "a.go:4")
		}, true},
		{"Uintptr", func() {
			var v uintptr
			engine.AtomicStoreUintptr(&v, 7, "a.go:1")
			engine.AtomicOrUintptr(&v, 8, "a.go:2")
			engine.AtomicAndUintptr(&v, 7, "a.go:3")
			engine.AtomicLoadUintptr(&v, "a.go:4")
		}, true},
		{"Bool", func() {
			var v atomic.Bool
			engine.AtomicBoolStore(&v, true, "a.go:1")
			engine.AtomicBoolSwap(&v, false, "a.go:2")
			engine.AtomicBoolStore(&v, true, "a.go:3")
			engine.AtomicBoolLoad(&v, "a.go:4")
		}, true},
		{"Pointer nil or not", func() {
			var v atomic.Pointer[int]
			engine.AtomicPointerStore(&v, &one, "a.go:1")
			engine.AtomicPointerStore(&v, nil, "a.go:2")
			engine.AtomicPointerStore(&v, &one, "a.go:3")
			engine.AtomicPointerLoad(&v, "a.go:4")
		}, true},
		{"Pointer addresses", func() {
			var v unsafe.Pointer
			engine.AtomicStorePointer(&v, unsafe.Pointer(&one), "a.go:1")
			engine.AtomicStorePointer(&v, unsafe.Pointer(&two), "a.go:2")
			engine.AtomicStorePointer(&v, unsafe.Pointer(&one), "a.go:3")
			engine.AtomicLoadPointer(&v, "a.go:4")
		}, false},
		{"Value", func() { // by the type of its value
			var v atomic.Value
			engine.AtomicValueStore(&v, 1, "a.go:1")
			engine.AtomicValueStore(&v, 2, "a.go:2")
			engine.AtomicValueStore(&v, 1, "a.go:3")
			engine.AtomicValueLoad(&v, "a.go:4")
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := atomicStates(t, true, tc.body)
			if s[0] != s[2] {
				t.Errorf("states after writing x, then x again: %#x and %#x, want equal", s[0], s[2])
			}
			if got := s[0] != s[1]; got != tc.differ {
				t.Errorf("states after writing x and y differ: %v, want %v (%#x, %#x)", got, tc.differ, s[0], s[1])
			}
			if off := atomicStates(t, false, tc.body); off[0] != 0 || off[1] != 0 || off[2] != 0 {
				t.Errorf("a strategy that does not observe the atomics got states %#x", off)
			}
		})
	}
}

// TestAtomicStateIsOfEveryVariable: two variables holding (1, 2) and then (2, 1) are two
// states, and a variable counts from the step that first operates on it.
func TestAtomicStateIsOfEveryVariable(t *testing.T) {
	s := atomicStates(t, true, func() {
		var a, b atomic.Int32
		engine.AtomicInt32Store(&a, 1, "b.go:1")
		engine.AtomicInt32Store(&b, 2, "b.go:2")
		engine.AtomicInt32Swap(&a, 2, "b.go:3")
		engine.AtomicInt32Store(&b, 1, "b.go:4")
	})
	// s[0]: a = 1, b not yet used (its first step is the next); s[1]: a = 1, b = 2;
	// s[2]: a = 2, b = 2.
	if s[0] == s[1] || s[1] == s[2] || s[0] == s[2] {
		t.Errorf("states %#x: want three different ones", s)
	}
	swapped := atomicStates(t, true, func() {
		var a, b atomic.Int32
		engine.AtomicInt32Store(&a, 2, "b.go:1")
		engine.AtomicInt32Store(&b, 1, "b.go:2")
		engine.AtomicInt32Load(&a, "b.go:3")
		engine.AtomicInt32Load(&b, "b.go:4")
	})
	if swapped[1] == s[1] {
		t.Errorf("(a, b) = (1, 2) and (2, 1) have the same state %#x", s[1])
	}
}
