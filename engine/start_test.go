package engine_test

import (
	"sync"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
)

// TestStartIsOneStepWithItsFirstOperation: a go statement's goroutine starts in the step that
// picks it, which runs what the goroutine does before its first scheduling point then — after
// any of its parent's later steps — and, when its first operation can proceed, that operation
// too: as many decisions as GoAll's eager start (the papers' step counts), the strategy told
// at the next decision what the step executed (Decision.Opened, LastOp). A first operation
// that blocks ends the step with the goroutine blocked there: one decision more than the eager
// start, which never offered the blocked goroutine.
func TestStartIsOneStepWithItsFirstOperation(t *testing.T) {
	var x, y int
	var mu sync.Mutex
	var prefixRan bool
	proceeds := func(start func([]func(), engine.Pos)) func(*engine.T) {
		return func(*engine.T) {
			prefixRan = false
			start([]func(){func() {
				prefixRan = true
				engine.Write(unsafe.Pointer(&x), "s.go:3")
				engine.Write(unsafe.Pointer(&x), "s.go:4")
			}}, "s.go:2")
			engine.Write(unsafe.Pointer(&y), "s.go:5") // the parent's later step
		}
	}
	blocks := func(start func([]func(), engine.Pos)) func(*engine.T) {
		return func(*engine.T) {
			prefixRan = false
			engine.Lock(&mu, "s.go:1")
			start([]func(){func() {
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
		// G0's go and write (the prefix has not run), G1's start and first write, its second.
		{"first operation proceeds", proceeds, false, 4, 4, 4,
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
