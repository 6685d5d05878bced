package engine_test

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
)

// TestOnceExactlyOnce: f runs exactly once, and every Do returns after f has returned, in
// every explored schedule.
func TestOnceExactlyOnce(t *testing.T) {
	rep := spExplore(t, func(et *engine.T) {
		var once sync.Once
		var wg sync.WaitGroup
		calls, value := 0, 0
		init := func() {
			calls++
			engine.Gosched("o.go:1") // others may try Do meanwhile
			engine.Write(unsafe.Pointer(&value), "o.go:2")
			value = 42
		}
		use := func() {
			engine.OnceDo(&once, init, "o.go:3")
			engine.Read(unsafe.Pointer(&value), "o.go:4")
			if value != 42 {
				et.Errorf("Do returned before f: value = %d", value)
			}
		}
		for i := 0; i < 3; i++ {
			engine.WGGo(&wg, use, "o.go:5")
		}
		use()
		engine.WGWait(&wg, "o.go:6")
		if calls != 1 {
			et.Errorf("f called %d times", calls)
		}
	}, randomStrategy(31), 2000)
	spNoBug(t, rep)
	if rep.Interleavings < 10 {
		t.Errorf("only %d interleavings explored", rep.Interleavings)
	}
}

// TestOncePanicAndGoexit: when f panics, Do considers it returned (the panic goes on, later
// calls do not call f); the same when f calls runtime.Goexit. The behavior is compared with
// the real sync.Once.
func TestOncePanicAndGoexit(t *testing.T) {
	scenario := func(do func(o *sync.Once, f func())) []string {
		var log []string
		var once sync.Once
		func() {
			defer func() { log = append(log, fmt.Sprint("recovered ", recover())) }()
			do(&once, func() { log = append(log, "f1"); panic("p1") })
		}()
		do(&once, func() { log = append(log, "f2") })
		log = append(log, "end")
		return log
	}
	want := fmt.Sprint(scenario(func(o *sync.Once, f func()) { o.Do(f) }))
	if want != "[f1 recovered p1 end]" {
		t.Fatalf("real sync.Once: %s", want)
	}
	var got string
	spNoBug(t, spExplore(t, func(et *engine.T) {
		got = fmt.Sprint(scenario(func(o *sync.Once, f func()) { engine.OnceDo(o, f, "op.go:1") }))
	}, firstEnabled(), 1))
	if got != want {
		t.Errorf("engine: %s, want %s", got, want)
	}

	// A panic that is not recovered is the goroutine's bug; other callers did not run f.
	rep := spExplore(t, func(et *engine.T) {
		var once sync.Once
		var wg sync.WaitGroup
		engine.WGGo(&wg, func() { engine.OnceDo(&once, func() { panic("init failed") }, "op.go:2") }, "op.go:3")
		engine.WGGo(&wg, func() { engine.OnceDo(&once, func() { panic("init failed") }, "op.go:4") }, "op.go:5")
		engine.WGWait(&wg, "op.go:6")
	}, randomStrategy(32), 100)
	spWantBug(t, rep, engine.Panic, "init failed")

	// Goexit in f: a later Do does not call f.
	spNoBug(t, spExplore(t, func(et *engine.T) {
		var once sync.Once
		var wg sync.WaitGroup
		engine.WGGo(&wg, func() { engine.OnceDo(&once, runtime.Goexit, "og.go:1") }, "og.go:2")
		engine.WGWait(&wg, "og.go:3")
		engine.OnceDo(&once, func() { et.Errorf("f called again") }, "og.go:4")
	}, randomStrategy(33), 20))
}

// TestOnceRecursiveDeadlock: o.Do called from f blocks forever, as in Go.
func TestOnceRecursiveDeadlock(t *testing.T) {
	rep := spExplore(t, func(et *engine.T) {
		var once sync.Once
		engine.OnceDo(&once, func() {
			engine.OnceDo(&once, func() {}, "rec.go:1")
		}, "rec.go:2")
	}, firstEnabled(), 1)
	spWantBug(t, rep, engine.Deadlock, "all goroutines are blocked:\n\tG0 once at rec.go:1")
}

// onceKind builds the three kinds of once functions over f, and calls them.
type onceKind struct {
	name  string
	build func(f func() int) func() int // returns a function that calls the once function
}

func onceKinds(real bool) []onceKind {
	return []onceKind{
		{"OnceFunc", func(f func() int) func() int {
			var r int
			var g func()
			if real {
				g = sync.OnceFunc(func() { r = f() })
			} else {
				g = engine.OnceFunc(func() { r = f() }, "of.go:1")
			}
			return func() int { g(); return r }
		}},
		{"OnceValue", func(f func() int) func() int {
			if real {
				return sync.OnceValue(f)
			}
			return engine.OnceValue(f, "of.go:2")
		}},
		{"OnceValues", func(f func() int) func() int {
			h := func() (int, error) { return f(), errors.New("e") }
			var g func() (int, error)
			if real {
				g = sync.OnceValues(h)
			} else {
				g = engine.OnceValues(h, "of.go:3")
			}
			return func() int {
				v, err := g()
				if err == nil || err.Error() != "e" {
					panic("bad second value")
				}
				return v
			}
		}},
	}
}

// TestOnceFuncs: OnceFunc, OnceValue and OnceValues call f once and return its value; when
// f panics every call panics with the same value. Compared with package sync's.
func TestOnceFuncs(t *testing.T) {
	scenario := func(k onceKind, panics bool) string {
		calls := 0
		g := k.build(func() int {
			calls++
			if panics {
				panic(fmt.Sprintf("p%d", calls))
			}
			return 7 * calls
		})
		var out []string
		for i := 0; i < 3; i++ {
			func() {
				defer func() {
					if r := recover(); r != nil {
						out = append(out, fmt.Sprint("panic ", r))
					}
				}()
				out = append(out, fmt.Sprint(g()))
			}()
		}
		return fmt.Sprint(calls, out)
	}
	for i, k := range onceKinds(true) {
		for _, panics := range []bool{false, true} {
			want := scenario(k, panics)
			var got string
			spNoBug(t, spExplore(t, func(et *engine.T) {
				got = scenario(onceKinds(false)[i], panics)
			}, firstEnabled(), 1))
			if got != want {
				t.Errorf("%s panics=%v: engine %s, sync %s", k.name, panics, got, want)
			}
		}
	}
}

// TestOnceFuncsConcurrent: concurrent callers of the once functions all see f's single
// result (or its panic), under many random schedules; a panic is reported with f's value.
func TestOnceFuncsConcurrent(t *testing.T) {
	for i, k := range onceKinds(false) {
		t.Run(k.name, func(t *testing.T) {
			spNoBug(t, spExplore(t, func(et *engine.T) {
				var wg sync.WaitGroup
				calls := 0
				g := onceKinds(false)[i].build(func() int {
					calls++
					engine.Gosched("ofc.go:1")
					return 5
				})
				for j := 0; j < 3; j++ {
					engine.WGGo(&wg, func() {
						if v := g(); v != 5 {
							et.Errorf("got %d", v)
						}
					}, "ofc.go:2")
				}
				engine.WGWait(&wg, "ofc.go:3")
				if calls != 1 {
					et.Errorf("f called %d times", calls)
				}
			}, randomStrategy(34), 500))

			// f panics: whichever goroutine calls first panics with f's value, and so
			// would every other.
			rep := spExplore(t, func(et *engine.T) {
				var wg sync.WaitGroup
				g := onceKinds(false)[i].build(func() int { panic(errors.New("bad init")) })
				for j := 0; j < 2; j++ {
					engine.WGGo(&wg, func() { g() }, "ofc.go:4")
				}
				engine.WGWait(&wg, "ofc.go:5")
			}, randomStrategy(35), 50)
			spWantBug(t, rep, engine.Panic, "bad init")
		})
	}
}
