package engine

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// active is the execution in progress, nil between executions. Only the goroutine the engine
// scheduled (e.cur) may change an execution's state, so the execution needs no lock: the
// handoff channels order every access.
var active atomic.Pointer[Exec]

// orphans holds the runtime identities of goroutines of abandoned executions (see the
// watchdog in Explore). When one of them comes back to a scheduling point it exits.
var (
	orphans     sync.Map
	orphanCount atomic.Int32
)

// goroutine is the engine's view of one controlled goroutine.
type goroutine struct {
	id       GID
	e        *Exec
	gp       uintptr       // runtime identity, see getg
	wake     chan struct{} // the handoff: a token means "run"
	parent   GID
	created  Pos        // position of the go statement that started it
	site     *stackSite // what is known of the stacks of that go statement's goroutines
	stackAt  uintptr    // where run's frame was when it began (stackSite)
	pregrown bool       // it grew its stack as it started (stackSite)
	fn       func()
	// test is the test (or subtest) whose function the goroutine runs, or that started it
	// (CurrentT): a go statement's goroutine belongs to its parent's test, a subtest's own
	// goroutine to the subtest.
	test *T

	pending  Op   // the operation it executes when picked
	done     bool // returned, or exited
	starting bool // at its start: its first point hands back to its parent, or goes on (opening)
	opening  bool // started by a step of its own: its first operation is part of that step
	lazy     bool // not running yet: its pending operation is OpStart
	// deferrable: a go statement's goroutine at its eager start, which becomes a start of
	// its own (deferStart) at the first thing it does that its parent's later steps could
	// tell apart (a t.Log) before its first scheduling point.
	deferrable bool
	blockedOn  blocker // what its pending operation waits for (nil: nothing)
	queues     []*waitq
	uq         *waitq // the uniform queue it waits in, if any, and its index there
	uqIndex    int
	captured   bool // reaping: capture the stack before exiting
	stack      []Frame
	end        goroutineEnd // how its function ended (run)

	wakeAt int64 // OpSleep: virtual time to wake at
	// served is the position of the last receive or select it completed: a goroutine
	// blocked there again, after the test returned, is a worker the test never stopped
	// (background.go).
	served Pos
	// parkedEpoch and parkedSince record that synctest.Wait found the goroutine durably
	// blocked (synctest.go): it still is while the epoch is the execution's and since has
	// not changed.
	parkedEpoch int
	parkedSince int

	vc vclock // the race detector's vector clock
}

// Exec is one controlled execution of a test body.
type Exec struct {
	// keySeq numbers the keys with no order of their own (pointers, channels, interfaces
	// holding them) that were stored into a map in this execution, in the order of their
	// first store: MapRange produces them in that order (maprange.go).
	keySeq   map[any]int
	strategy Strategy
	// maxSteps is the step bound of the execution as it stands; stepLimit, when above it, is
	// how far the adaptive bound (stepBound) may still grow it, and atBound is set once the
	// execution ended at its bound.
	maxSteps  int
	stepLimit int
	atBound   bool
	root      string // Config.Root

	gs []*goroutine
	// enabled is the enabled goroutines in id order, a cache of en rebuilt only when a
	// strategy asks for the whole list (enabledList): a step that enables or disables a
	// mutex's thousand waiters, or picks one of ten thousand enabled goroutines at random,
	// costs a pass over en's words, not one per goroutine. enabledOK says it is up to date;
	// nEnabled is always the number of enabled goroutines.
	enabled   []GID
	enabledOK bool
	nEnabled  int
	// en, since and jumps are per goroutine, by GID, kept apart from the goroutines so that
	// enabling or disabling a mutex's thousand waiters touches only them: whether it is
	// enabled (it can proceed, or it is running); the step at which it last ran or was last
	// enabled (fair.go); the number of clock jumps when it was last disabled — once the clock
	// jumped since, it has been blocked while every goroutine was (synctest.go).
	en     enabledSet
	since  []int
	jumps  []int
	cur    *goroutine
	steps  int
	last   GID
	lastOp OpKind
	// opened is the first operation of the goroutine that step openedAt started (started).
	opened   Op
	openedAt int
	trace    []traceStep
	choices  []choiceRecord

	decision  Decision
	choice    Choice
	positions positions
	fp        fingerprinter
	// inline is the first goroutine when the exploration's own goroutine runs it, and baton
	// passes the exploration on (end).
	inline *goroutine
	baton  interface{ pass() }

	shadow map[shadowKey]any // shadow synchronization objects, by address
	polled []*goroutine      // waiting on objects the engine cannot observe
	// lookedAt is the last step whose operation, though of a kind that changes things, changed
	// nothing: a select that took its default, a TryLock that failed; clockReadAt the last step
	// during which the program looked at the time (clock.go, passSlow).
	lookedAt, clockReadAt int
	// clockAheadAt is the first step at which the virtual clock ran faster than the work
	// while the program read it (clock.go, passSlow); -1 when it has not.
	clockAheadAt int
	// watches are the context.AfterFunc registrations waiting for their context (context.go).
	watches []*ctxWatch
	// cycleSince is the step at which a lock cycle closed (-1: none): background.go.
	cycleSince int

	clock clock

	// rand is the execution's source for math/rand's top-level functions (rand.go), made
	// on first use and dropped at reset, so that every execution draws the same values.
	rand *randSource
	// atomics is the state of the atomic variables, for an AtomicsObserver (atomicstate.go).
	atomics atomicVars

	// runLen counts the steps the last goroutine has executed in a row while another
	// goroutine was enabled; fairSteps is the bound at which it is made to yield (fair.go).
	runLen    int
	fairSteps int
	starved   [1]GID // the choice offered when a goroutine starves (fair.go)
	// slice is how many more steps the goroutine in starved runs in a row, as long as it stays
	// enabled: the slice the starvation rule gave it (fair.go).
	slice int
	// delaysLeft is how many more times the clock may move past runnable goroutines, up to
	// delayMax ahead, and delays says what each of those it took did (sleepdelay.go).
	delaysLeft int
	delayMax   int64
	delays     []string
	// starveFloor is at most the step since which every enabled goroutine has been waiting
	// (fair.go, unstarve).
	starveFloor int

	// numBase is the number of goroutines the process had when the exploration began
	// (NumGoroutine).
	numBase int

	// parkEpoch counts the returns of synctest.Wait (synctest.go).
	parkEpoch int

	// strictLeaks is Config.StrictLeaks; recurring holds the sites of the timers that fired
	// after the test body returned (background.go).
	strictLeaks bool
	recurring   map[Pos]struct{}

	done      chan struct{} // closed-over signal: the execution is over
	reaped    chan struct{}
	ended     bool
	aborting  bool
	abandoned atomic.Bool
	progress  atomic.Int64
	// running is the goroutine that has control, published for the watchdog.
	running atomic.Pointer[goroutine]

	// points says which memory accesses are scheduling points; racyPoints lists them for
	// PointsRacy. race is the race detector, nil when it is off.
	points     Points
	racyPoints map[Pos]bool
	race       *raceDetector
	raceKept   *raceDetector // reused across executions
	raceFail   bool

	result Result
	pool   []*goroutine
	// stackSites is what the executions so far learnt of the stacks of the goroutines of
	// each go statement, by its position (stackSite).
	stackSites map[Pos]*stackSite
}

func newExec() *Exec {
	return &Exec{
		shadow: make(map[shadowKey]any),
		done:   make(chan struct{}, 1),
		reaped: make(chan struct{}, 1),
	}
}

// reset prepares a (reused) execution for the next run.
func (e *Exec) reset(s Strategy, maxSteps, stepLimit int) {
	for _, g := range e.gs {
		g.vc.release()
		*g = goroutine{wake: g.wake, queues: g.queues[:0], vc: g.vc}
		e.pool = append(e.pool, g)
	}
	e.strategy = s
	e.maxSteps, e.stepLimit, e.atBound = maxSteps, stepLimit, false
	e.inline, e.baton = nil, nil
	e.gs = e.gs[:0]
	e.enabled, e.enabledOK, e.nEnabled = e.enabled[:0], true, 0
	e.en.reset()
	e.since, e.jumps = e.since[:0], e.jumps[:0]
	e.cur = nil
	e.steps = 0
	e.last = NoGoroutine
	e.lastOp = OpNone
	e.opened, e.openedAt = Op{}, 0
	e.trace = e.trace[:0]
	e.choices = e.choices[:0]
	e.decision = Decision{e: e}
	clear(e.shadow)
	clear(e.keySeq)
	e.polled = e.polled[:0]
	e.lookedAt, e.clockReadAt = -1, -busyDoubling-1
	e.clockAheadAt = -1
	clear(e.watches)
	e.watches = e.watches[:0]
	e.cycleSince = -1
	clear(e.recurring)
	e.clock.reset()
	e.rand = nil
	e.atomics.reset(s)
	e.runLen = 0
	e.slice = 0
	e.starveFloor = 0
	e.delaysLeft, e.delayMax, e.delays = 0, 0, e.delays[:0]
	e.ended = false
	e.aborting = false
	e.progress.Store(0)
	e.result = Result{}
}

// current returns the execution and the calling goroutine when the caller is the controlled
// goroutine the engine is running. It returns a nil goroutine when the operation must simply
// be performed for real: no execution is in progress, or the caller is a goroutine the engine
// did not start (which is noted in the execution's result).
func current(pos Pos) (*Exec, *goroutine) {
	e := active.Load()
	if e == nil {
		if orphanCount.Load() > 0 {
			exitIfOrphan()
		}
		if s := stressing.Load(); s != nil {
			s.point()
		}
		return nil, nil
	}
	if g := e.caller(); g != nil {
		return e, g
	}
	return e.foreign(pos)
}

// caller returns the calling goroutine if it is the controlled goroutine that has control.
func (e *Exec) caller() *goroutine {
	g := e.cur
	if g == nil || (goroutineIdentity && g.gp != getg()) {
		return nil
	}
	return g
}

// foreign handles a call from a goroutine that is not the scheduled one: an orphan of an
// abandoned execution exits; any other goroutine passes through uncontrolled, and the
// execution records where.
func (e *Exec) foreign(pos Pos) (*Exec, *goroutine) {
	if orphanCount.Load() > 0 {
		exitIfOrphan()
	}
	e.result.noteForeign(pos)
	return nil, nil
}

func exitIfOrphan() {
	if _, ok := orphans.Load(getg()); ok {
		runtime.Goexit()
	}
}

// point is the scheduling point before g executes a non-blocking operation: yield, written
// out, as it is every access's.
func (e *Exec) point(g *goroutine, kind OpKind, obj uintptr, pos Pos) {
	g.pending = Op{kind, obj, pos}
	if e.aborting {
		runtime.Goexit()
	}
	if g.starting {
		e.started(g)
		return
	}
	if next := e.decide(); next != g {
		e.handOff(g, next)
	}
}

// pointWait is the scheduling point before g executes an operation that proceeds only when
// b.ready(g). While it cannot, g is disabled and waits in qs, whose object notifies it when it
// changes; with no queue, whatever makes the operation possible enables g itself (a timer).
func (e *Exec) pointWait(g *goroutine, kind OpKind, obj uintptr, pos Pos, b blocker, qs ...*waitq) {
	g.pending = Op{kind, obj, pos}
	e.pointBlocking(g, b, false, qs)
}

// pointPoll is pointWait for an operation on an object the engine cannot observe (a channel
// made by uninstrumented code): while it is disabled, b is re-evaluated at every decision.
func (e *Exec) pointPoll(g *goroutine, kind OpKind, obj uintptr, pos Pos, b blocker) {
	g.pending = Op{kind, obj, pos}
	e.pointBlocking(g, b, true, nil)
}

// pointBlocking is pointWait and pointPoll for g, whose pending operation is set. Its frame
// and its caller's are under the strategy's Pick (yield written out): see register.
func (e *Exec) pointBlocking(g *goroutine, b blocker, polled bool, qs []*waitq) {
	if e.aborting {
		runtime.Goexit()
	}
	e.register(g, b, polled, qs)
	if g.starting && (!g.opening || e.en.has(g.id)) {
		e.started(g)
	} else {
		g.starting, g.opening = false, false // a start's step that ends with g blocked
		if next := e.decide(); next != g {
			e.handOff(g, next)
		}
	}
	if k := g.pending.Kind; k == OpRecv || k == OpSelect || k == OpNetRead {
		g.served = g.pending.Pos
	}
	if g.blockedOn != nil {
		e.unregister(g)
	}
}

// register makes g, at its pending operation that proceeds only when b.ready(g), wait in qs
// (polled: re-evaluated at every decision), and disables it while it cannot proceed. Apart
// from pointBlocking, as unregister is, so that the frame under the strategy's Pick stays
// small: a goroutine's first scheduling point is often a blocking one (a Lock, a receive),
// decided on the stack the goroutine started with (TestSchedulingPointsFitTheInitialStack).
//
//go:noinline
func (e *Exec) register(g *goroutine, b blocker, polled bool, qs []*waitq) {
	// Registered even when it can proceed now: another goroutine's step may change the object
	// before g is picked (lock a mutex that g is about to lock), and must disable g then.
	g.blockedOn = b
	if polled {
		e.polled = append(e.polled, g)
	}
	for _, q := range qs {
		q.add(g)
		g.queues = append(g.queues, q)
	}
	if !b.ready(g) {
		e.setEnabled(g, false)
		if g.pending.Kind == OpLock && e.cycleSince < 0 && e.lockCycleEntry(g) != nil {
			e.cycleSince = e.steps // background.go
		}
	}
}

// unregister takes g, whose blocking operation proceeds, out of the queues register put it in.
//
//go:noinline
func (e *Exec) unregister(g *goroutine) {
	for _, q := range g.queues {
		q.remove(g)
	}
	g.queues = g.queues[:0]
	g.blockedOn = nil
	for i, p := range e.polled {
		if p == g {
			e.polled = append(e.polled[:i], e.polled[i+1:]...)
			break
		}
	}
}

// yield gives the strategy the choice of the next step. It returns when g is picked to execute
// its pending operation; if the execution ends instead, g waits to be reaped and never returns.
func (e *Exec) yield(g *goroutine) {
	if g.starting {
		e.started(g)
		return
	}
	if next := e.decide(); next != g {
		e.handOff(g, next)
	}
}

// started ends the start of g, which has reached its first scheduling point. In an eager
// start (see spawn) it hands control back to the parent, whose step goes on. In a start that
// is a step of its own (opening), g's first operation, which can proceed, is part of that
// step: g goes on without a decision, and the step's operation, as the strategies see it
// next (Decision.LastOp, Decision.Opened), is that first operation. The number of decisions
// is then the eager start's — the papers' step counts — while what g does before its first
// operation still happens when the strategy picks g, after any of its parent's later steps.
func (e *Exec) started(g *goroutine) {
	g.starting = false
	if g.opening {
		g.opening = false
		e.lastOp = g.pending.Kind
		e.opened, e.openedAt = g.pending, e.steps
		e.traceOpened(g)
		return
	}
	e.switchTo(g, e.gs[g.parent])
}

// traceOpened records in the trace that the start's step of g, its last decision, executed
// g's first operation: the detectors, the fingerprint and the schedule see what the step did
// (a replay, which finds the start pending, checks that operation after the step:
// strategy.Replay).
//
//go:noinline
func (e *Exec) traceOpened(g *goroutine) {
	for i := len(e.trace) - 1; i >= 0; i-- {
		if s := &e.trace[i]; !s.isChoice() {
			s.obj = g.pending.Obj
			s.code = traceOpened | traceCode(g.pending.Kind, e.positions.id(g.pending.Pos))
			return
		}
	}
}

// handOff passes control from g to next, the goroutine decide picked, or parks g for good when
// the execution is over (next is nil).
func (e *Exec) handOff(g, next *goroutine) {
	if next == nil {
		e.park(g)
	}
	e.switchTo(g, next)
}

// switchTo hands control from the running goroutine from to goroutine to, and blocks until
// from is scheduled again.
func (e *Exec) switchTo(from, to *goroutine) {
	e.cur = to
	to.wake <- struct{}{}
	e.wait(from)
}

// wait blocks g until it is handed control. During reaping it exits instead.
func (e *Exec) wait(g *goroutine) {
	<-g.wake
	if e.aborting {
		if g.captured {
			g.stack = callers(2)
		}
		runtime.Goexit()
	}
	e.running.Store(g)
}

// park blocks g for good: the execution is over, and g waits to be reaped.
func (e *Exec) park(g *goroutine) {
	e.wait(g)
	panic("engine: parked goroutine resumed") // unreachable: wait exits while reaping
}

// decide picks the goroutine that executes the next step, advancing virtual time while no
// goroutine is enabled. It returns nil when the execution is over (its result is set).
func (e *Exec) decide() *goroutine {
	if !e.beforePick() {
		return nil
	}
	return e.afterPick(e.strategy.Pick(&e.decision))
}

// beforePick is decide up to the strategy's Pick: it returns false when the execution is
// over (its result is set), and otherwise fills e.decision. decide is split in three so that
// the frame under the strategy's Pick is small: Pick runs on the stack of the goroutine at
// the scheduling point, under the program's frames and the engine's, and the deepest calls of
// a strategy just fit in the stack a new goroutine starts with
// (TestSchedulingPointsFitTheInitialStack).
//
//go:noinline
func (e *Exec) beforePick() bool {
	e.clock.pass(e)
	for e.nEnabled == 0 || len(e.polled) > 0 || len(e.watches) > 0 {
		if len(e.polled) > 0 || len(e.watches) > 0 {
			e.poll()
			if e.nEnabled > 0 {
				break
			}
		}
		if e.outlived() {
			e.background()
			return false
		}
		if e.clock.advance(e) {
			continue
		}
		e.terminal()
		return false
	}
	if e.delaysLeft > 0 && e.mayDelay() && !e.offerDelay() {
		return false
	}
	if e.cycleSince >= 0 && e.steps-e.cycleSince >= e.cycleGrace() {
		if e.deadlockCycle() {
			return false
		}
		e.cycleSince = -1 // broken: a goroutine outside unlocked a mutex it did not lock
	}
	if e.maxSteps > 0 && e.steps >= e.maxSteps {
		if e.testReturned() {
			e.atBound = true
			e.background()
			return false
		}
		if e.stepBound() {
			return false
		}
		// The adaptive bound grew: the execution goes on.
	}
	e.steps++
	if e.steps&63 == 0 {
		// For the watchdog. Not every step: an atomic store costs about as much as the rest
		// of a scheduling point that does not switch.
		e.progress.Store(int64(e.steps))
	}
	d := &e.decision
	d.Step = e.steps
	d.list = nil
	if e.fairSteps > 0 && e.nEnabled > 1 && (e.slice > 0 || e.steps&starveCheck == 0) && e.starving() {
		d.list = e.starved[:]
	}
	d.Last = e.last
	// A goroutine that is done is never enabled (exit disables it).
	d.LastEnabled = e.last >= 0 && e.en.has(e.last)
	d.LastOp = e.lastOp
	if d.LastEnabled && e.fairYield() {
		d.LastOp = OpYield
	}
	d.Goroutines = len(e.gs)
	return true
}

// afterPick is decide after the strategy picked id: it checks the pick and records the step.
// It returns nil when the pick ends the execution.
//
//go:noinline
func (e *Exec) afterPick(id GID) *goroutine {
	d := &e.decision
	// The common pick, the goroutine that just ran and can go on, needs no check.
	if (id != d.Last || !d.LastEnabled || d.list != nil) && (uint(id) >= uint(len(e.gs)) || !e.en.has(id) || (d.list != nil && id != d.list[0])) {
		e.pickedNotEnabled(id)
		return nil
	}
	next := e.gs[id]
	e.since[id] = e.steps
	if d.LastEnabled && id != e.last {
		e.result.Preemptions++
	}
	e.countRun(id)
	// positions.id by hand: it is not inlinable (its slow path is a call), and this is every
	// step's.
	pos := next.pending.Pos
	data := unsafe.StringData(pos)
	slot := &e.positions.cache[(uintptr(unsafe.Pointer(data))>>3)&positionCacheMask]
	pid := slot.id
	if slot.data != data || slot.n != len(pos) || data == nil {
		pid = e.positions.intern(pos)
	}
	e.trace = append(e.trace, traceStep{g: id, obj: next.pending.Obj, code: traceCode(next.pending.Kind, pid)})
	e.last = id
	e.lastOp = next.pending.Kind
	return next
}

// pickedNotEnabled ends the execution whose strategy picked id, which is not enabled. Apart
// from decide, which every step runs, so that its frame stays small: decide runs on the
// stack of the goroutine at the scheduling point, and a frame that pushes a new goroutine's
// stack over its initial size costs a copy of that stack.
//
//go:noinline
func (e *Exec) pickedNotEnabled(id GID) {
	e.abortStrategy(fmt.Sprintf("step %d: strategy %s picked %v, which is not enabled (enabled: %v)", e.steps, e.strategy.Name(), id, e.decision.Enabled()))
}

// choose asks the strategy to pick one of n alternatives for g's pending operation, and
// records the choice. With n == 1 there is nothing to choose and nothing is recorded.
func (e *Exec) choose(g *goroutine, n int) int {
	if n <= 1 {
		return 0
	}
	c := &e.choice
	*c = Choice{N: n, Step: e.steps, G: g.id, Op: g.pending}
	k := e.strategy.Choose(c)
	if k < 0 || k >= n {
		e.abortStrategy(fmt.Sprintf("step %d: strategy %s chose alternative %d of %d", e.steps, e.strategy.Name(), k, n))
		e.park(g)
	}
	e.trace = append(e.trace, traceStep{g: g.id, obj: uintptr(len(e.choices)), code: traceChoice | traceCode(g.pending.Kind, e.positions.id(g.pending.Pos))})
	e.choices = append(e.choices, choiceRecord{int32(k), int32(n)})
	return k
}

// setStepObject records the object the current step acted on, when it is only known after
// the step started (the channel of the select case taken).
func (e *Exec) setStepObject(obj uintptr) {
	for i := len(e.trace) - 1; i >= 0; i-- {
		if !e.trace[i].isChoice() {
			e.trace[i].obj = obj
			return
		}
	}
}

// terminal classifies an execution in which no goroutine is enabled and no timer is due.
func (e *Exec) terminal() {
	var blocked []*goroutine
	for _, g := range e.gs {
		if !g.done {
			blocked = append(blocked, g)
		}
	}
	if len(blocked) == 0 {
		e.end()
		return
	}
	if e.gs[0].done {
		e.leftBlocked(blocked) // background.go
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "all goroutines are blocked:")
	writeBlocked(&b, blocked)
	e.fail(&Bug{Kind: Deadlock, Message: b.String(), G: blocked[0].id, Pos: blocked[0].pending.Pos}, nil)
}

// fail records bug as the execution's bug (the first one wins) and ends the execution.
func (e *Exec) fail(bug *Bug, g *goroutine) {
	e.recordBug(bug, g)
	e.end()
}

// recordBug records bug without ending the execution (a t.Error: the test goes on).
func (e *Exec) recordBug(bug *Bug, g *goroutine) {
	if e.result.Bug != nil || e.aborting {
		// The first bug wins, and nothing that happens while the execution is torn down
		// (reap) is a bug of it.
		return
	}
	bug.Step = e.steps
	if g != nil {
		bug.G = g.id
		if bug.Pos == "" {
			bug.Pos = g.pending.Pos
		}
	}
	bug.Pos = RelativePos(e.root, bug.Pos)
	if d := e.delayed(); d != "" {
		bug.Delayed = d
		bug.Message += "\n(it needed a goroutine delayed past a sleep: " + d + ")"
	}
	if e.clockAheadAt >= 0 {
		bug.ClockAhead = fmt.Sprintf("from step %d on, the program worked and read the clock while the virtual clock ran ahead of the work: %v had passed by step %d",
			e.clockAheadAt, roughly(time.Duration(e.clock.now)), e.steps)
	}
	e.result.Bug = bug
}

func (e *Exec) abortStrategy(msg string) {
	var err error
	if a, ok := e.strategy.(Aborter); ok {
		err = a.Err()
	}
	if err == nil {
		err = fmt.Errorf("%s", msg)
	}
	e.result.Err = err
	e.end()
}

// end marks the execution over and wakes the explorer, which reaps the goroutines left.
func (e *Exec) end() {
	if e.ended {
		return
	}
	e.ended = true
	if e.inline != nil {
		e.passExploration()
	}
	e.done <- struct{}{}
}

// passExploration has another goroutine take the exploration on when the exploration's
// goroutine, which runs the execution's first goroutine (exploration.runInline), is blocked in
// it: it cannot wait for the end. Apart from end so that end stays small enough to be inlined:
// it is on the deepest stacks of the engine's, where one more frame makes the goroutine that
// ends an execution grow its stack (BenchmarkExecution 15 % slower).
//
//go:noinline
func (e *Exec) passExploration() {
	if !e.inline.done {
		e.baton.pass()
	}
}
