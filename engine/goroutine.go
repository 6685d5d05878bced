// The life of a controlled goroutine: made (spawn, newGoroutine), run on a real goroutine
// (run) until it returns, panics or exits, handing control on (exit), and reaped when the
// execution is over (reap).

package engine

import "fmt"

// spawn creates goroutine G(n) running f, started by parent at pos. With eager start (the
// default) the new goroutine runs at once to its first scheduling point, as part of the
// parent's step, and then hands control back: its first visible operation becomes its pending
// operation, so that what it does first is a choice like any other (SCTBench counts a thread's
// first statement as its first step). A lazy goroutine (an AfterFunc callback, started by the
// clock) does not run until it is picked; its pending operation is OpStart.
func (e *Exec) spawn(parent *goroutine, f func(), pos Pos, lazy bool) *goroutine {
	g := e.newGoroutine(f, pos)
	if parent != nil {
		g.parent = parent.id
	}
	e.raceGo(parent, g)
	if lazy {
		g.lazy = true
		g.pending = Op{Kind: OpStart, Pos: pos}
		e.setEnabled(g, true)
		go e.run(g)
		return g
	}
	g.starting = true
	e.setEnabled(g, true)
	// The child runs until its first scheduling point, then hands back. It is the current
	// goroutine from its first instruction on.
	e.cur = g
	go e.run(g)
	e.wait(parent)
	e.cur = parent
	return g
}

func (e *Exec) newGoroutine(f func(), pos Pos) *goroutine {
	var g *goroutine
	if n := len(e.pool); n > 0 {
		g = e.pool[n-1]
		e.pool = e.pool[:n-1]
	} else {
		g = &goroutine{wake: make(chan struct{}, 1)}
	}
	g.id = GID(len(e.gs))
	g.e = e
	g.parent = NoGoroutine
	g.created = pos
	g.fn = f
	e.gs = append(e.gs, g)
	e.en.grow(len(e.gs))
	e.since, e.jumps = append(e.since, 0), append(e.jumps, 0)
	return g
}

// run is the body of every controlled goroutine.
func (e *Exec) run(g *goroutine) {
	g.gp = getg()
	if !g.lazy {
		e.running.Store(g)
	}
	var (
		returned  bool    // g.fn returned
		completed bool    // g.fn returned or panicked: the goroutine did not Goexit
		panicked  bool    // g.fn panicked, with value pv and stack
		pv        any     // nil for panic(nil) under GODEBUG=panicnil=1 (go lines before 1.21)
		stack     []Frame // where it panicked
	)
	defer func() {
		if e.abandoned.Load() {
			// An orphan of an abandoned execution (see runner.abandon). The runtime reuses
			// the identity of an exited goroutine, so it must not stay registered.
			if _, ok := orphans.LoadAndDelete(g.gp); ok {
				orphanCount.Add(-1)
			}
			return
		}
		if e.aborting {
			e.reaped <- struct{}{}
			return
		}
		// Everything this goroutine changes happens before end() wakes the explorer.
		g.done = true
		if g.id == 0 {
			e.testEnd = e.clock.now
		}
		e.setEnabled(g, false)
		if panicked && completed {
			e.panicked(g, pv, stack)
			e.end()
			return
		}
		e.exit(g)
	}()
	if g.lazy {
		e.wait(g)
		g.lazy = false
	}
	func() {
		defer func() {
			if returned {
				return
			}
			// A panic, or runtime.Goexit (t.FailNow, the engine reaping the goroutine):
			// recover stops a panic, even panic(nil) whose value it cannot tell from no
			// panic at all, and does not stop Goexit, which goes on past completed.
			pv, panicked = recover(), true
			if !e.abandoned.Load() && !e.aborting {
				// The engine's and the runtime's frames (gopanic) are hidden, so the stack
				// starts at the frame that panicked or faulted.
				stack = callers(2)
			}
		}()
		g.fn()
		returned = true
	}()
	completed = true
}

// panicked records a panic that reached the top of a controlled goroutine, with the stack where
// it panicked. The deferred calls of the goroutine have run; other goroutines were scheduled
// meanwhile, as in Go.
func (e *Exec) panicked(g *goroutine, r any, stack []Frame) {
	msg := fmt.Sprint(r)
	if err, ok := r.(error); ok {
		msg = err.Error()
	}
	if r == nil {
		// Before Go 1.21 (GODEBUG=panicnil=1, the default of older go lines) the value is
		// nil, and Go crashes with "panic: nil".
		msg = "panic(nil): a panic with a nil value"
	}
	bug := &Bug{Kind: Panic, Message: msg, Value: r, Pos: g.pending.Pos}
	if len(stack) > 0 {
		bug.Pos = stack[0].Pos()
	}
	g.stack = stack
	e.recordBug(bug, g)
}

// exit hands control from the goroutine g, which has returned, to the next goroutine.
func (e *Exec) exit(g *goroutine) {
	if g.starting {
		g.starting = false
		e.cur = e.gs[g.parent]
		e.cur.wake <- struct{}{}
		return
	}
	next := e.decide()
	if next == nil {
		return
	}
	e.cur = next
	next.wake <- struct{}{}
}

// reap ends the goroutines left when the execution is over: each one is woken in turn and
// exits from its scheduling point with runtime.Goexit, so that its deferred calls run (their
// visible operations end them at once). Its stack is captured first when the result needs it.
func (e *Exec) reap(stacks bool) {
	e.aborting = true
	for _, g := range e.gs {
		if g.done {
			continue
		}
		g.captured = stacks
		e.cur = g
		g.wake <- struct{}{}
		<-e.reaped
		g.done = true
	}
	e.cur = nil
}
