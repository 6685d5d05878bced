// The life of a controlled goroutine: made (spawn, newGoroutine), run on a real goroutine
// (run) until it returns, panics or exits, handing control on (exit), and reaped when the
// execution is over (reap).

package engine

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"unsafe"
)

// spawn creates goroutine G(n) running f, started by parent at pos (nil: started by the
// clock, an AfterFunc callback). A lazy goroutine (a callback's) is enabled
// with OpStart as its pending operation and does not run until a step picks it: its start is
// a scheduling point of its own, so that what it does before its first visible operation (a
// t.Log, reads that are not scheduling points) may come after any of its parent's later
// steps, as under Go's scheduler, which may leave a new goroutine unscheduled while its
// parent goes on. Its real goroutine waits at once for that step (run). The step then goes on
// through the goroutine's first operation when it can proceed (started), so that a go
// statement costs the decisions of an eager start.
//
// An eager goroutine (GoAll's: the create of the papers' programs, whose model has no visible
// start of a thread) runs at once to its first scheduling point instead, as part of the
// parent's step, and then hands control back: its first visible operation is its pending
// operation and its first step, as SCTBench counts a thread's first statement.
func (e *Exec) spawn(parent *goroutine, f func(), pos Pos, lazy bool) *goroutine {
	g := e.newGoroutine(f, pos)
	if parent != nil {
		g.parent = parent.id
		g.test = parent.test
	}
	e.raceGo(parent, g)
	e.setEnabled(g, true)
	if lazy {
		g.lazy = true
		g.pending = Op{Kind: OpStart, Pos: pos}
		go e.run(g)
		return g
	}
	g.starting = true
	// The child runs until its first scheduling point, then hands back. It is the current
	// goroutine from its first instruction on.
	e.cur = g
	go e.run(g)
	e.wait(parent)
	e.cur = parent
	return g
}

// spawnGo starts a go statement's goroutine. Its start is a scheduling point of its own when
// what it does before its first scheduling point is observable: a t.Log (Log, Error, Fail
// and the like, which panic once the test has completed) — Go's scheduler may run it after
// any of its parent's later steps, after the test returned too. It therefore starts as an
// eager goroutine, running in its parent's step, and at the first such act becomes a lazy one
// (deferStart): control goes back to its parent, its pending operation is OpStart, and the
// step that picks it goes on from that act through its first operation (started). When it
// does nothing observable before its first point (its other code there — local computation,
// the accesses that are no scheduling point, whose order no execution can tell apart: an
// access racing with another is a point with -points racy or all — is the same whenever it
// runs), it reaches that point in its parent's step, as an eager start: a start that the
// strategies could order would change nothing but offer them a goroutine that may only
// block at its first operation, which an eager start leaves disabled — a phantom enabled
// goroutine, with which stride (seed 000 §V-A) counted a goroutine running alone as one that
// ran beside another and carried its stride past the point where others could run (SCTBench's
// twostage_100 found by the portfolio at 1 seed of 10 instead of 7).
func (e *Exec) spawnGo(parent *goroutine, f func(), pos Pos) *goroutine {
	g := e.newGoroutine(f, pos)
	g.parent = parent.id
	g.test = parent.test
	e.raceGo(parent, g)
	e.setEnabled(g, true)
	g.starting, g.deferrable = true, true
	e.cur = g
	go e.run(g)
	e.wait(parent)
	e.cur = parent
	return g
}

// deferStart makes the current goroutine g, at its eager start, a goroutine whose start is a
// step of its own, when what it is about to do can be told apart from its parent's later
// steps: control goes back to the parent, and g goes on when a step picks it.
func (e *Exec) deferStart(g *goroutine) {
	if !g.starting || !g.deferrable || g.opening || e.aborting || (goroutineIdentity && g.gp != getg()) {
		return // not at its eager start, or not the caller (a goroutine the engine did not start)
	}
	g.deferrable, g.starting = false, false
	g.pending = Op{Kind: OpStart, Pos: g.created}
	e.switchTo(g, e.gs[g.parent])
	g.starting, g.opening = true, true
}

func (e *Exec) newGoroutine(f func(), pos Pos) *goroutine {
	var g *goroutine
	if n := len(e.pool); n > 0 {
		g = e.pool[n-1]
		e.pool = e.pool[:n-1]
	} else {
		g = &goroutine{wake: make(chan struct{}, 1)}
		engineMade.Add(goroutineBytes)
	}
	g.id = GID(len(e.gs))
	g.e = e
	g.parent = NoGoroutine
	g.created = pos
	g.site = e.stackSite(pos)
	g.fn = f
	e.gs = append(e.gs, g)
	e.en.grow(len(e.gs))
	e.since, e.jumps = append(e.since, 0), append(e.jumps, 0)
	return g
}

// run is the body of every controlled goroutine. It keeps what it learns of the goroutine's
// end in the goroutine's record (goroutine.end), not in variables of its own: every scheduling
// point of the goroutine runs on a stack that starts with run's frame, and the runtime starts
// a goroutine with 2 KB of stack, copied to a larger one (a walk of every frame on it) by the
// first call that needs more — a strategy's choice of the next step, a check of the race
// detector. Small frames here leave that room to the program and the engine's deeper paths;
// where that is not enough for most goroutines of a go statement, the later ones grow their
// stacks first thing (stackSite).
//
// A goroutine started lazily (spawn) waits for the step that starts it before anything else:
// until then another goroutine has control, and it may touch nothing that the execution
// shares (its go statement's stackSite among them).
func (e *Exec) run(g *goroutine) {
	g.gp = getg()
	defer e.finish(g)
	if g.lazy {
		e.wait(g)
		g.lazy = false
		g.starting, g.opening = true, true
	} else {
		e.running.Store(g)
	}
	var mark byte // where run's frame is: it moves when the stack is copied to a larger one
	if g.pregrown = g.site.start(); g.pregrown {
		growStack(0)
	}
	g.stackAt = uintptr(unsafe.Pointer(&mark))
	e.call(g)
	g.end.completed = true
	if !g.pregrown && !e.abandoned.Load() { // an orphan runs uncontrolled: it notes nothing
		g.site.observe(uintptr(unsafe.Pointer(&mark)) != g.stackAt)
	}
}

// stackSite is what the engine learns of the stacks of the goroutines that one go statement
// starts. The runtime starts a goroutine with 2 KB of stack and copies it to a twice larger
// one when a call needs more: a walk of every frame on the stack, adjusting each (about a
// microsecond with the fifteen frames of a program's goroutine at a channel operation whose
// partner the engine notifies: a quarter of the time of a worker pool of 1,025 goroutines).
// Once most goroutines of a go statement have grown their stacks, the later ones grow theirs
// as they start, while run's frame is the only one to copy (growStack); a goroutine that
// would not have grown pays for that copy and for the larger stack, so it is done only where
// most did (a thousand goroutines that lock, count and unlock never grow: pregrown, they were
// 14% slower). What most did is what the last goroutines observed did: the counts are halved
// as they reach stackSiteWindow, and while the goroutines grow their stacks as they start, one
// in stackSiteProbe does not, and is observed. The first executions of an exploration are not
// like the others — a strategy's tables and the engine's slices grow from empty, allocating
// on the goroutines' stacks, deep in the runtime's allocator — and a go statement whose
// goroutines grew then should not have all of its goroutines grow their stacks for good (a
// thousand goroutines under greybox were 25% slower).
type stackSite struct {
	grew, kept int32 // goroutines observed lately that ended with their stack copied, and not
	pregrow    bool  // the go statement's goroutines grow their stacks as they start
	started    int32 // goroutines started while pregrow was set, for the probes
}

// pregrowing enables stackSite's growing of stacks; the tests turn it off to see what grows.
var pregrowing = true

const (
	stackSiteWindow = 64
	stackSiteProbe  = 64
)

// start reports whether a goroutine of s starting now grows its stack as it starts; one that
// does not is observed when it ends.
func (s *stackSite) start() bool {
	if !s.pregrow || !pregrowing {
		return false
	}
	s.started++
	return s.started%stackSiteProbe != 0
}

// observe notes that a goroutine of s ended with its stack copied (grew) or not.
func (s *stackSite) observe(grew bool) {
	if grew {
		s.grew++
	} else {
		s.kept++
	}
	if s.grew+s.kept >= stackSiteWindow {
		s.grew, s.kept = s.grew/2, s.kept/2
	}
	s.pregrow = s.grew >= 2 && s.grew > s.kept
}

// stackSite returns the record of the go statement at pos.
func (e *Exec) stackSite(pos Pos) *stackSite {
	s := e.stackSites[pos]
	if s == nil {
		if e.stackSites == nil {
			e.stackSites = make(map[Pos]*stackSite)
		}
		s = &stackSite{}
		e.stackSites[pos] = s
	}
	return s
}

// growStack has a frame that a goroutine's initial stack cannot hold with its guard, so that
// calling it first thing gives the goroutine a 4 KB stack (stackSite).
//
//go:noinline
func growStack(i int) byte {
	var pad [1536]byte
	return pad[i%len(pad)]
}

// goroutineEnd is how a controlled goroutine's function ended (run).
type goroutineEnd struct {
	returned  bool // g.fn returned
	completed bool // g.fn returned or panicked: the goroutine did not Goexit
	panicked  bool // g.fn panicked, with value pv and stack
	pv        any  // nil for panic(nil) under GODEBUG=panicnil=1 (go lines before 1.21)
	stack     []Frame
	// strategy is the strategy's frames when the panic began in its choice of a step: the
	// tool's failure, not the program's (strategyPanic).
	strategy []Frame
	// testing is the method of package testing that made the goroutine exit ("FailNow",
	// "SkipNow"), called by testingCaller: the real *testing.T's, from code that was not
	// instrumented (external.go).
	testing       string
	testingCaller Frame
}

// call calls g's function, recording a panic (recovered) or Goexit in g.end.
func (e *Exec) call(g *goroutine) {
	defer e.recoverPanic(g)
	g.fn()
	g.end.returned = true
}

// recoverPanic, deferred by call, stops a panic of g's function and records it.
func (e *Exec) recoverPanic(g *goroutine) {
	if g.end.returned {
		return
	}
	// A panic, or runtime.Goexit (t.FailNow, the engine reaping the goroutine): recover stops
	// a panic, even panic(nil) whose value it cannot tell from no panic at all, and does not
	// stop Goexit, which goes on past completed.
	g.end.pv, g.end.panicked = recover(), true
	if !e.abandoned.Load() && !e.aborting {
		// The engine's and the runtime's frames (gopanic) are hidden, so the stack starts at
		// the frame that panicked or faulted.
		g.end.stack = callers(2)
		g.end.strategy = strategyPanic()
		if g.end.pv == nil {
			g.end.testing, g.end.testingCaller = testingExit()
		}
	}
}

// finish, deferred by run, ends g's part in the execution once its function has returned,
// panicked or exited.
func (e *Exec) finish(g *goroutine) {
	if e.abandoned.Load() {
		// An orphan of an abandoned execution (see runner.abandon). The runtime reuses the
		// identity of an exited goroutine, so it must not stay registered.
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
	e.setEnabled(g, false)
	if g.test != nil && (g.end.testing != "" || g.test.root().external != nil) {
		e.checkExternal(g, nil)
	}
	if end := &g.end; end.panicked && end.completed {
		if end.strategy != nil {
			e.strategyPanicked(end.pv, end.strategy)
		} else {
			e.panicked(g, end.pv, end.stack)
		}
		e.end()
		return
	}
	e.exit(g)
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

// strategyPanic, called in a deferred function while a panic is being recovered, returns the
// frames from where the panic began to the strategy's Pick or Choose when it began there, in the
// scheduler's choice of a step (Exec.decide, Exec.choose), and nil when it began anywhere else.
// The scheduler runs the strategy on the stack of the goroutine at the scheduling point, so a
// strategy's panic unwinds the program's goroutine; it is the tool's failure, and is reported
// as one, not as a panic of the program at its scheduling point.
func strategyPanic() []Frame {
	pcs := make([]uintptr, 128)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	var began []Frame
	inPanic := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			// The panic recovered, or, when it began in a deferred call run by an earlier
			// panic, that earlier one: the frames below it are where that one began.
			inPanic, began = true, began[:0]
		case !inPanic || strings.HasPrefix(f.Function, "runtime."):
		case f.Function == enginePkg+"(*Exec).decide" || f.Function == enginePkg+"(*Exec).choose":
			if n := len(began); n > 0 && (strings.HasSuffix(began[n-1].Func, ".Pick") || strings.HasSuffix(began[n-1].Func, ".Choose")) {
				return began
			}
			return nil
		default:
			began = append(began, Frame{Func: f.Function, File: f.File, Line: f.Line})
		}
		if !more {
			return nil
		}
	}
}

// strategyPanicked ends the execution whose strategy panicked with value r at the frames given
// (strategyPanic) with an error naming the strategy, the step and where.
func (e *Exec) strategyPanicked(r any, frames []Frame) {
	var b strings.Builder
	fmt.Fprintf(&b, "step %d: strategy %s panicked: %v", e.steps, e.strategy.Name(), r)
	for _, f := range frames {
		fmt.Fprintf(&b, "\n\t%s\n\t\t%s:%d", f.Func, f.File, f.Line)
	}
	e.result.Err = errors.New(b.String())
}

// exit hands control from the goroutine g, which has returned, to the next goroutine.
func (e *Exec) exit(g *goroutine) {
	if g.opening {
		// Its start's step ends with it: it returned before any scheduling point.
		g.starting, g.opening = false, false
	} else if g.starting {
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
