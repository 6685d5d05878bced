package engine

import (
	"runtime"
	"unsafe"
)

// shadowKey identifies a shadow object: the address of the real object and its kind, since
// distinct objects can share an address (a struct and its first field).
type shadowKey struct {
	addr uintptr
	kind uint8
}

// Kinds of shadow objects, for shadowKey.
const (
	shadowMutex uint8 = iota + 1
	shadowRWMutex
	shadowWaitGroup
	shadowOnce
	shadowCond
	shadowChan
	shadowTimer
	shadowTicker
	shadowSyncMap
	shadowPool
	shadowNet
)

// lookup returns the shadow object of kind k at addr, creating it with mk on first sight.
func lookup[S any](e *Exec, addr uintptr, k uint8, mk func() *S) *S {
	key := shadowKey{addr, k}
	if v, ok := e.shadow[key]; ok {
		return v.(*S)
	}
	s := mk()
	e.shadow[key] = s
	return s
}

// Go starts f as a new controlled goroutine: the go statement at pos. The statement is one
// step of the goroutine that executes it, in which the new goroutine runs to its first
// scheduling point — unless it does something observable before it (a t.Log), when its start
// becomes a step of its own (OpStart) that the strategy orders like any other: that step runs
// the rest of its code before its first scheduling point and executes its first operation
// when that can proceed (Exec.spawnGo, Exec.deferStart, Exec.started).
func Go(f func(), pos Pos) {
	e, g := current(pos)
	if g == nil {
		if s := stressing.Load(); s != nil && e == nil {
			s.spawn(nil, f, pos)
			return
		}
		go f()
		return
	}
	e.point(g, OpGo, 0, pos)
	e.spawnGo(g, f, pos)
}

// GoAll starts every function of fs as a new goroutine, in order, in a single step: the
// create(T1, T2, T3) of SCTBench's Figure 1 and of the other papers' programs, whose model
// has no visible start of a thread. Each goroutine runs at once to its first scheduling
// point, which becomes its pending operation (an eager start, spawn): a thread's first step
// is its first statement, as the papers count steps. The instrumenter does not use it: a go
// statement is Go, whose goroutine's start is a step of its own.
func GoAll(fs []func(), pos Pos) {
	e, g := current(pos)
	if g == nil {
		s := stressing.Load()
		for _, f := range fs {
			if s != nil && e == nil {
				s.spawn(nil, f, pos)
			} else {
				go f()
			}
		}
		return
	}
	e.point(g, OpGo, 0, pos)
	for _, f := range fs {
		e.spawn(g, f, pos, false)
	}
}

// Gosched is runtime.Gosched: a yield. Systematic strategies switch to another goroutine
// after it, and PCT lowers the yielding goroutine's priority (SCTBench §3), so a busy-wait loop
// that yields cannot starve the goroutine it waits for.
func Gosched(pos Pos) {
	e, g := current(pos)
	if g == nil {
		runtime.Gosched()
		return
	}
	e.point(g, OpYield, 0, pos)
}

// NumGoroutine is runtime.NumGoroutine as the program under test would see it: the goroutines
// the process had when the exploration began (the test's own among them) and the live
// goroutines of the current execution in place of the test's — not the engine's, nor those
// left by executions abandoned earlier. It is the same at the same step of every execution
// of a schedule, so a test that compares counts replays. Reading it is not a scheduling point.
func NumGoroutine() int {
	e := active.Load()
	if e == nil || e.caller() == nil {
		return runtime.NumGoroutine()
	}
	live := 0
	for _, g := range e.gs {
		if !g.done {
			live++
		}
	}
	return e.numBase - 1 + live
}

// Read is the scheduling point before a read of possibly shared memory at addr.
//
// Read and Write, the most frequent calls by far, have current's common case and point's
// written out (neither can be inlined): a scheduling point that does not switch is then two
// calls, decide and the strategy's Pick, instead of four.
func Read(addr unsafe.Pointer, pos Pos) {
	e := active.Load()
	var g *goroutine
	if e != nil {
		g = e.cur
	}
	if g == nil || (goroutineIdentity && g.gp != getg()) {
		if e, g = current(pos); g == nil {
			return
		}
	}
	if e.isPoint(pos) {
		g.pending = Op{OpRead, uintptr(addr), pos}
		if e.aborting || g.starting {
			e.point(g, OpRead, uintptr(addr), pos)
		} else if next := e.decide(); next != g {
			e.handOff(g, next)
		}
	}
	if e.race != nil {
		e.raceAccess(g, addr, false, false, pos)
	}
}

// Write is the scheduling point before a write of possibly shared memory at addr. See Read.
func Write(addr unsafe.Pointer, pos Pos) {
	e := active.Load()
	var g *goroutine
	if e != nil {
		g = e.cur
	}
	if g == nil || (goroutineIdentity && g.gp != getg()) {
		if e, g = current(pos); g == nil {
			return
		}
	}
	if e.isPoint(pos) {
		g.pending = Op{OpWrite, uintptr(addr), pos}
		if e.aborting || g.starting {
			e.point(g, OpWrite, uintptr(addr), pos)
		} else if next := e.decide(); next != g {
			e.handOff(g, next)
		}
	}
	if e.race != nil {
		e.raceAccess(g, addr, true, false, pos)
	}
}

// Goroutine returns the id of the calling controlled goroutine, or NoGoroutine.
func Goroutine() GID {
	if e := active.Load(); e != nil {
		if g := e.caller(); g != nil {
			return g.id
		}
	}
	return NoGoroutine
}

// throw reports a Go runtime fatal error (an unlock of an unlocked mutex, say) as a panic
// with the runtime's message: Go would end the program, the engine ends the execution.
func throw(msg string) {
	panic(fatalError(msg))
}

// fatalError is the panic value for what the Go runtime treats as a fatal error.
type fatalError string

func (f fatalError) Error() string { return "fatal error: " + string(f) }
