package engine_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
)

// TestAtomicCounter: a counter incremented with a plain read and write loses updates in
// some schedule; incremented with atomics (function, type method, CAS loop) it never does.
func TestAtomicCounter(t *testing.T) {
	const n = 3
	incs := []struct {
		name  string
		inc   func(c *int64, x *atomic.Int64)
		value func(c *int64, x *atomic.Int64) int64
		lost  bool
	}{
		{"plain", func(c *int64, _ *atomic.Int64) {
			engine.Read(unsafe.Pointer(c), "a.go:1")
			v := *c
			engine.Write(unsafe.Pointer(c), "a.go:2")
			*c = v + 1
		}, func(c *int64, _ *atomic.Int64) int64 { return *c }, true},
		{"AddInt64", func(c *int64, _ *atomic.Int64) {
			engine.AtomicAddInt64(c, 1, "a.go:3")
		}, func(c *int64, _ *atomic.Int64) int64 { return engine.AtomicLoadInt64(c, "a.go:4") }, false},
		{"Int64.Add", func(_ *int64, x *atomic.Int64) {
			engine.AtomicInt64Add(x, 1, "a.go:5")
		}, func(_ *int64, x *atomic.Int64) int64 { return engine.AtomicInt64Load(x, "a.go:6") }, false},
		{"CAS loop", func(c *int64, _ *atomic.Int64) {
			for {
				v := engine.AtomicLoadInt64(c, "a.go:7")
				if engine.AtomicCompareAndSwapInt64(c, v, v+1, "a.go:8") {
					return
				}
			}
		}, func(c *int64, _ *atomic.Int64) int64 { return engine.AtomicLoadInt64(c, "a.go:9") }, false},
	}
	for _, tt := range incs {
		t.Run(tt.name, func(t *testing.T) {
			rep := spExplore(t, func(et *engine.T) {
				var c int64
				var x atomic.Int64
				var wg sync.WaitGroup
				for i := 0; i < n; i++ {
					engine.WGGo(&wg, func() { tt.inc(&c, &x) }, "a.go:10")
				}
				engine.WGWait(&wg, "a.go:11")
				if v := tt.value(&c, &x); v != n {
					et.Errorf("counter = %d, want %d", v, n)
				}
			}, randomStrategy(51), 1000)
			if !tt.lost {
				spNoBug(t, rep)
				return
			}
			if rep.First == nil || rep.First.Bug.Kind != engine.Fail || !strings.HasPrefix(rep.First.Bug.Message, "counter = ") {
				t.Fatalf("lost update not found: %+v", rep)
			}
		})
	}
}

// atomicScript exercises a sample of every family of wrappers and returns what they return.
func atomicScript() string {
	var out []string
	p := func(v ...any) { out = append(out, fmt.Sprint(v...)) }

	var i32 int32
	p(engine.AtomicAddInt32(&i32, 5, "s.go:1"), engine.AtomicAndInt32(&i32, 4, "s.go:2"), engine.AtomicOrInt32(&i32, 3, "s.go:3"))
	p(engine.AtomicSwapInt32(&i32, -1, "s.go:4"), engine.AtomicCompareAndSwapInt32(&i32, 0, 9, "s.go:5"), engine.AtomicCompareAndSwapInt32(&i32, -1, 9, "s.go:6"))
	engine.AtomicStoreInt32(&i32, 11, "s.go:7")
	p(engine.AtomicLoadInt32(&i32, "s.go:8"))

	var u64 uint64
	p(engine.AtomicAddUint64(&u64, ^uint64(0), "s.go:9"), engine.AtomicAndUint64(&u64, 0xff, "s.go:10"), engine.AtomicOrUint64(&u64, 0x100, "s.go:11"), engine.AtomicLoadUint64(&u64, "s.go:12"))
	var up uintptr
	p(engine.AtomicAddUintptr(&up, 3, "s.go:13"), engine.AtomicSwapUintptr(&up, 8, "s.go:14"), engine.AtomicLoadUintptr(&up, "s.go:15"))

	a, b := new(int), new(int)
	var ptr unsafe.Pointer
	engine.AtomicStorePointer(&ptr, unsafe.Pointer(a), "s.go:16")
	p(engine.AtomicLoadPointer(&ptr, "s.go:17") == unsafe.Pointer(a), engine.AtomicSwapPointer(&ptr, unsafe.Pointer(b), "s.go:18") == unsafe.Pointer(a),
		engine.AtomicCompareAndSwapPointer(&ptr, unsafe.Pointer(a), nil, "s.go:19"), engine.AtomicCompareAndSwapPointer(&ptr, unsafe.Pointer(b), nil, "s.go:20"))

	var bo atomic.Bool
	p(engine.AtomicBoolLoad(&bo, "s.go:21"), engine.AtomicBoolSwap(&bo, true, "s.go:22"), engine.AtomicBoolCompareAndSwap(&bo, false, true, "s.go:23"))
	engine.AtomicBoolStore(&bo, false, "s.go:24")
	p(engine.AtomicBoolLoad(&bo, "s.go:25"))

	var x32 atomic.Uint32
	p(engine.AtomicUint32Add(&x32, 7, "s.go:26"), engine.AtomicUint32And(&x32, 6, "s.go:27"), engine.AtomicUint32Or(&x32, 1, "s.go:28"),
		engine.AtomicUint32Swap(&x32, 2, "s.go:29"), engine.AtomicUint32CompareAndSwap(&x32, 2, 3, "s.go:30"), engine.AtomicUint32Load(&x32, "s.go:31"))

	var pt atomic.Pointer[int]
	p(engine.AtomicPointerLoad(&pt, "s.go:32") == nil)
	engine.AtomicPointerStore(&pt, a, "s.go:33")
	p(engine.AtomicPointerSwap(&pt, b, "s.go:34") == a, engine.AtomicPointerCompareAndSwap(&pt, b, a, "s.go:35"), engine.AtomicPointerLoad(&pt, "s.go:36") == a)

	var v atomic.Value
	p(engine.AtomicValueLoad(&v, "s.go:37"))
	engine.AtomicValueStore(&v, "x", "s.go:38")
	p(engine.AtomicValueSwap(&v, "y", "s.go:39"), engine.AtomicValueCompareAndSwap(&v, "x", "z", "s.go:40"), engine.AtomicValueCompareAndSwap(&v, "y", "z", "s.go:41"), engine.AtomicValueLoad(&v, "s.go:42"))
	return strings.Join(out, " | ")
}

// TestAtomicSemantics: the wrappers return what sync/atomic returns, outside an execution
// (where they are the real operations) and under the engine.
func TestAtomicSemantics(t *testing.T) {
	const want = "5 5 4 | 7 false true | 11 | 18446744073709551615 18446744073709551615 255 511 | 3 3 8 | " +
		"true true false true | false false false | false | 7 7 6 7 true 3 | true | true true true | <nil> | xfalse truez"
	outside := atomicScript()
	var inside string
	spNoBug(t, spExplore(t, func(et *engine.T) { inside = atomicScript() }, firstEnabled(), 1))
	if outside != inside {
		t.Errorf("outside: %s\ninside:  %s", outside, inside)
	}
	if outside != want {
		t.Errorf("got  %s\nwant %s", outside, want)
	}
}

// TestAtomicOpKinds: every wrapper is one step of the right kind, at its position.
func TestAtomicOpKinds(t *testing.T) {
	res := engine.Run(func(et *engine.T) {
		var x atomic.Int32
		var p unsafe.Pointer
		var v atomic.Value
		engine.AtomicInt32Load(&x, "k.go:1")
		engine.AtomicInt32Store(&x, 1, "k.go:2")
		engine.AtomicInt32Add(&x, 1, "k.go:3")
		engine.AtomicInt32CompareAndSwap(&x, 0, 1, "k.go:4") // fails: still a read-modify-write
		engine.AtomicLoadPointer(&p, "k.go:5")
		engine.AtomicStorePointer(&p, nil, "k.go:6")
		engine.AtomicValueStore(&v, 1, "k.go:7")
		engine.AtomicValueLoad(&v, "k.go:8")
		engine.AtomicOrUint32(new(uint32), 1, "k.go:9")
	}, firstEnabled(), engine.Config{})
	if res.Bug != nil || res.Err != nil {
		t.Fatal(res.Bug, res.Err)
	}
	var got []string
	for _, s := range res.Schedule {
		got = append(got, s.Op+"@"+s.Pos)
	}
	want := "atomic.load@k.go:1 atomic.store@k.go:2 atomic.rmw@k.go:3 atomic.rmw@k.go:4 atomic.load@k.go:5 " +
		"atomic.store@k.go:6 atomic.store@k.go:7 atomic.load@k.go:8 atomic.rmw@k.go:9"
	if strings.Join(got, " ") != want {
		t.Errorf("schedule:\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
}

// TestAtomicValuePanics: misuses of atomic.Value panic with package sync/atomic's messages.
func TestAtomicValuePanics(t *testing.T) {
	tests := []struct {
		name string
		f    func(v *atomic.Value)
		msg  string
	}{
		{"store nil", func(v *atomic.Value) { engine.AtomicValueStore(v, nil, "v.go:1") }, "sync/atomic: store of nil value into Value"},
		{"store other type", func(v *atomic.Value) {
			engine.AtomicValueStore(v, 1, "v.go:2")
			engine.AtomicValueStore(v, "s", "v.go:3")
		}, "sync/atomic: store of inconsistently typed value into Value"},
		{"swap nil", func(v *atomic.Value) { engine.AtomicValueSwap(v, nil, "v.go:4") }, "sync/atomic: swap of nil value into Value"},
		{"cas nil", func(v *atomic.Value) { engine.AtomicValueCompareAndSwap(v, nil, nil, "v.go:5") }, "sync/atomic: compare and swap of nil value into Value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := spExplore(t, func(et *engine.T) { tt.f(new(atomic.Value)) }, firstEnabled(), 1)
			spWantBug(t, rep, engine.Panic, tt.msg)
		})
	}
}
