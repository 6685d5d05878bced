package engine_test

import (
	"sync"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
)

// TestStartIsOneStepWithItsFirstOperation: a go statement's goroutine that does something
// observable before its first scheduling point (a t.Log: after the test returned it panics)
// starts in a step of its own, which runs that code then — after any of its parent's later
// steps — and, when its first operation can proceed, that operation too: as many decisions
// as an eager start (the papers' step counts), the strategy told at the next decision what
// the step executed (Decision.Opened, LastOp). A first operation that blocks ends the step
// with the goroutine blocked there: one decision more than the eager start, which never
// offered the blocked goroutine. A goroutine that does nothing observable before its first
// point (here, with GoAll, and with a go statement whose goroutine does not log) starts
// eagerly, in its parent's step: no observer can tell that start from a later one.
func TestStartIsOneStepWithItsFirstOperation(t *testing.T) {
	var x, y int
	var mu sync.Mutex
	var prefixRan bool
	proceeds := func(start func([]func(), engine.Pos)) func(*engine.T) {
		return func(t *engine.T) {
			prefixRan = false
			var wg sync.WaitGroup
			engine.WGAdd(&wg, 1, "s.go:1")
			start([]func(){func() {
				t.Log("starts")
				prefixRan = true
				engine.Write(unsafe.Pointer(&x), "s.go:3")
				engine.Write(unsafe.Pointer(&x), "s.go:4")
				engine.WGDone(&wg, "s.go:6")
			}}, "s.go:2")
			engine.Write(unsafe.Pointer(&y), "s.go:5") // the parent's later step
			engine.WGWait(&wg, "s.go:7")
		}
	}
	blocks := func(start func([]func(), engine.Pos)) func(*engine.T) {
		return func(t *engine.T) {
			prefixRan = false
			engine.Lock(&mu, "s.go:1")
			start([]func(){func() {
				t.Log("starts")
				prefixRan = true
				engine.Lock(&mu, "s.go:3")
				engine.Unlock(&mu, "s.go:4")
			}}, "s.go:2")
			engine.Unlock(&mu, "s.go:5")
		}
	}
	goStmt := func(fs []func(), pos engine.Pos) { engine.Go(fs[0], pos) }
	type seen struct {
		prefixRan bool
		lastOp    engine.OpKind
		opened    engine.Op
	}
	for _, tt := range []struct {
		name       string
		body       func(func([]func(), engine.Pos)) func(*engine.T)
		highest    bool // pick the highest enabled goroutine, else the lowest
		steps      int  // with the go statement
		eagerSteps int  // with GoAll
		at         int  // the decision after G1's start
		want       seen // at that decision
	}{
		// G0's Add, go, write and Wait (the prefix has not run: G1 logs only when picked),
		// G1's start and first write, its second write, its Done, G0's Wait returning.
		{"first operation proceeds", proceeds, false, 8, 8, 6,
			seen{true, engine.OpWrite, engine.Op{Kind: engine.OpWrite, Obj: uintptr(unsafe.Pointer(&x)), Pos: "s.go:3"}}},
		// G0's lock and go, G1's start (blocked at its lock), G0's unlock, G1's lock, unlock.
		{"first operation blocks", blocks, true, 6, 5, 4, seen{true, engine.OpStart, engine.Op{}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []seen
			s := &funcStrategy{pick: func(d *engine.Decision) engine.GID {
				got = append(got, seen{prefixRan, d.LastOp, d.Opened()})
				if tt.highest {
					return d.EnabledAt(d.NumEnabled() - 1)
				}
				return d.EnabledAt(0)
			}}
			res := chRun(t, tt.body(goStmt), s)
			if res.Bug != nil {
				t.Fatal(res.Bug)
			}
			if res.Steps != tt.steps {
				t.Errorf("%d steps, want %d", res.Steps, tt.steps)
			}
			if len(got) < tt.at {
				t.Fatalf("%d decisions", len(got))
			}
			if got[tt.at-2].prefixRan {
				t.Errorf("the prefix ran before the step that started G1: %v", got)
			}
			if got[tt.at-1] != tt.want {
				t.Errorf("at decision %d, after G1's start: %+v, want %+v", tt.at, got[tt.at-1], tt.want)
			}
			eager := chRun(t, tt.body(engine.GoAll), &funcStrategy{pick: func(d *engine.Decision) engine.GID {
				if tt.highest {
					return d.EnabledAt(d.NumEnabled() - 1)
				}
				return d.EnabledAt(0)
			}})
			if eager.Steps != tt.eagerSteps {
				t.Errorf("%d steps with GoAll, want %d", eager.Steps, tt.eagerSteps)
			}
		})
	}
}

// TestStartWithNothingObservableIsEager: a go statement's goroutine that does nothing
// observable before its first scheduling point runs to that point in its parent's go step,
// as an eager start: at the next decision its pending operation is its first operation, not
// its start, so that a first operation that would block leaves it disabled (it offers the
// strategies no start that would only block).
func TestStartWithNothingObservableIsEager(t *testing.T) {
	var mu sync.Mutex
	var prefixRan bool
	var got []engine.Op
	var enabled []int
	s := &funcStrategy{pick: func(d *engine.Decision) engine.GID {
		if d.Goroutines > 1 {
			got = append(got, d.Pending(1))
			enabled = append(enabled, d.NumEnabled())
		}
		return d.EnabledAt(0)
	}}
	res := chRun(t, func(*engine.T) {
		prefixRan = false
		engine.Lock(&mu, "e.go:1")
		engine.Go(func() {
			prefixRan = true
			engine.Lock(&mu, "e.go:3")
			engine.Unlock(&mu, "e.go:4")
		}, "e.go:2")
		if !prefixRan {
			t.Errorf("G1's code before its first point had not run when its go statement returned")
		}
		engine.Unlock(&mu, "e.go:5")
	}, s)
	if res.Bug != nil {
		t.Fatal(res.Bug)
	}
	if len(got) == 0 || got[0].Kind != engine.OpLock || got[0].Pos != "e.go:3" || enabled[0] != 1 {
		t.Errorf("after the go statement G1's pending operations %v with %v enabled: want its lock at e.go:3, disabled (G0 holds the mutex)", got, enabled)
	}
}
