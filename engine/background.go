package engine

import (
	"fmt"
	"strings"
)

// Goroutines that outlive the test: one rule, whatever the length of the work they wait for.
// Once the test has returned (with its cleanups), the goroutines left run on in virtual time
// to quiescence: the clock jumps from timer to timer while nothing else can run, until each
// goroutine has finished, is blocked forever (nothing enabled and no timer pending), or only
// recurring timers are left — tickers, and timers set again at a site (a sleep, a time.After,
// a context's deadline) whose timer already fired after the test returned: a loop that polls,
// retries or cleans up on a period. The step bound bounds the whole. Then:
//
//   - A goroutine blocked forever on an operation no live goroutine can complete is a leak,
//     reported at that operation (terminal, leftBlocked), unless it only waits to receive
//     (below). A worker whose deadline is shorter than its work, left blocked on an
//     unbuffered send once the work ends, is the same leak at the same send whether the work
//     takes 200ms or 2s: the clock runs to the end of the work either way.
//   - A goroutine blocked forever receiving — a receive, a range or a select whose every case
//     receives from a channel — at the very operation it already completed before (a loop
//     that served requests and now waits for the next one, or for a stop signal) is a worker
//     the test never stopped: a cache whose Close it did not call. go test passes such a
//     test; goleak fails it. It is a notice (Result.Background), and a leak with
//     Config.StrictLeaks. This is the engine's proxy for "the goroutine is reachable from the
//     test's own objects", which it cannot see: a worker idle in its loop. A goroutine
//     that never got what it waits for — a result never sent, a stopped timer's tick — or
//     blocked sending, locking, or waiting for a WaitGroup or on a nil channel, was
//     abandoned by the code: a leak.
//   - A server the test never stopped is the same worker, on the virtual network: a goroutine
//     blocked forever accepting on a listener nobody closed (an httptest.NewServer without
//     Close), or reading a connection at the read it already completed before (a keep-alive
//     connection waiting for its next request or response). A read that never got what it
//     waits for is a leak.
//   - Goroutines left running on recurring timers (a janitor on a ticker, a retry loop), or
//     still running at the step bound, are background goroutines: a notice, and with
//     Config.StrictLeaks a leak.
//
// The exit status follows: a leak is a bug (interleave test exits 1, the debugger and the
// language server show it as one); a notice is printed and does not fail the run.
// -strict-leaks (Config.StrictLeaks) makes every goroutine left after the test a leak, as
// goleak does. The command, the debugger and the language server all take their verdicts
// from here.

// testReturned reports whether the test body (G0) has returned, with its cleanups.
func (e *Exec) testReturned() bool { return len(e.gs) > 0 && e.gs[0].done }

// firedAfterTest records that a timer set at site fired after the test returned: a timer
// set there again is recurring.
func (e *Exec) firedAfterTest(site Pos) {
	if e.recurring == nil {
		e.recurring = map[Pos]struct{}{}
	}
	e.recurring[site] = struct{}{}
}

// outlived reports whether the goroutines left after the test returned have run to
// quiescence with timers pending: every pending timer is recurring.
func (e *Exec) outlived() bool {
	if !e.testReturned() || len(e.clock.timers) == 0 {
		return false
	}
	for _, t := range e.clock.timers {
		if t.period > 0 {
			continue
		}
		if _, ok := e.recurring[t.site]; !ok || t.site == "" {
			return false
		}
	}
	return true
}

// background ends an execution whose test returned while goroutines go on: a notice, or with
// Config.StrictLeaks a Leak bug.
func (e *Exec) background() {
	if e.deadlockCycle() {
		return
	}
	var left []*goroutine
	for _, g := range e.gs {
		if !g.done {
			left = append(left, g)
		}
	}
	if e.strictLeaks {
		var b strings.Builder
		fmt.Fprintf(&b, "the test returned, but %d goroutine(s) go on after it:", len(left))
		for _, g := range left {
			fmt.Fprintf(&b, "\n\t%v (started at %s) %s", g.id, g.created, g.pending)
		}
		e.fail(&Bug{Kind: Leak, Message: b.String(), G: left[0].id, Pos: left[0].pending.Pos}, nil)
		return
	}
	e.noteBackground(left)
	e.end()
}

// noteBackground records the goroutines gs, left after the test returned, as a notice.
func (e *Exec) noteBackground(gs []*goroutine) {
	for _, g := range gs {
		e.result.Background = append(e.result.Background, GoroutineState{
			ID: g.id, Parent: g.parent, Created: RelativePos(e.root, g.created), Pending: g.pending, Status: g.status(),
		})
	}
}

// leftBlocked ends an execution whose test returned and whose goroutines left, blocked, have
// no timer that could wake them: each one is a leak, found at its operation, but those idle in
// a receiving loop (waitsForWork), which the test never stopped: a notice (Config.StrictLeaks:
// a leak).
func (e *Exec) leftBlocked(blocked []*goroutine) {
	var leaked, idle []*goroutine
	for _, g := range blocked {
		if waitsForWork(g) {
			idle = append(idle, g)
		} else {
			leaked = append(leaked, g)
		}
	}
	if e.strictLeaks {
		leaked = blocked
	}
	if len(leaked) == 0 {
		e.noteBackground(idle)
		e.end()
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the test returned, but %d goroutine(s) stay blocked forever:", len(leaked))
	writeBlocked(&b, leaked)
	e.fail(&Bug{Kind: Leak, Message: b.String(), G: leaked[0].id, Pos: leaked[0].pending.Pos}, nil)
}

// waitsForWork reports whether g is blocked receiving (a receive, a range, or a select whose
// every case receives, from at least one channel that is not nil) at the operation it last
// completed: a worker idle in its loop; or accepting on a virtual listener, or reading a
// virtual connection at the read it completed before: a server idle between clients or
// requests.
func waitsForWork(g *goroutine) bool {
	switch g.pending.Kind {
	case OpNetAccept:
		// A server whose listener the test never closed: it waits for the next client
		// (httptest.NewServer without Close), whether one came before or not.
		return true
	case OpNetRead:
		// A connection idle between requests (a keep-alive connection's server or client)
		// at the read it completed before; a read that never got its reply is a leak.
		return g.served == g.pending.Pos
	}
	o, ok := g.blockedOn.(*chanOp)
	if !ok || o.done || g.served != g.pending.Pos {
		return false
	}
	live := false
	for i := range o.sgs {
		s := &o.sgs[i]
		if s.b == nil || s.b.send {
			return false
		}
		if s.c != nil || s.fc != nil || s.b.addr != 0 {
			live = true
		}
	}
	return live
}

// The step bound. An execution that reaches Config.MaxSteps without ending is a livelock only
// with evidence that no goroutine can make progress: no timer is pending, and for the last
// livelockWindow steps or more (the last half of a shorter execution), every
// step only looked (a read, an atomic load, a yield, a channel's length) and none changed
// anything, the looks went over the same few locations again and again (each at least
// twice on average), and each goroutine that ran repeated one short loop (spinning) —
// goroutines spinning on each other's flags (a livelock), or one alone on a flag nothing can
// set (a hang). Otherwise the program was still changing state (sending, locking, writing),
// or reading its way through memory (a sum over a table of 200,000 atomic counters is as many
// loads of as many locations; lookups through a chain of 300 nodes repeat no short loop): a
// test that simply runs long, or goroutines that take turns forever, which the engine cannot
// tell apart. With the adaptive bound (Config.MaxSteps 0) the bound then doubles and the
// execution goes on, up to its limit (runner.stepBounds), so that a long test reaches its end
// and its final checks; at the limit, or at a bound given, it is reported as the step bound
// reached (Result.StepBound, a notice), never as a bug of the user's code.

// livelockWindow is how many of the last steps must only look for a livelock.
const livelockWindow = 1000

// A lock cycle: goroutines each blocked locking a sync.Mutex that the next one locked and alone
// can unlock. Go lets any goroutine unlock a mutex, so the one that locked it is taken to be
// the only one that can only while it has not passed anything on since its Lock (handedOff):
// a mutex locked before a send, a go statement or an atomic store may be unlocked by whoever
// learns of it (a summary flushed by handing its locked batch to the goroutine that sums it
// and unlocks), and is in no cycle. None of a cycle's goroutines can unlock anything, and no
// other goroutine can correctly unlock their mutexes, so they are deadlocked, even while other
// goroutines run on (a ticker's). The cycle is looked for when a goroutine blocks locking a mutex (the step that can
// close it). If the execution then ends as it would have anyway — every goroutine blocked (the
// classic deadlock), or the test returning with the cycle's goroutines left behind (a leak) —
// that is the report. If instead it runs on for cycleGrace steps (other goroutines polling, a
// ticker), the cycle is reported then as the deadlock it is, rather than at the step bound; and
// at the step bound or with goroutines going on after the test, a cycle still closed is too.

// cycleGrace is how long an execution runs on after a lock cycle closed before the cycle is
// reported: longer than the fairness rules take to run every enabled goroutine (stepBound's
// window), so that an execution about to end ends first.
func (e *Exec) cycleGrace() int {
	return max(livelockWindow, (starveFactor+1)*e.fairSteps)
}

// lockCycle returns the goroutines of a lock cycle, each waiting for the next one's mutex, or
// nil.
func (e *Exec) lockCycle() []*goroutine {
	for _, start := range e.gs {
		if cycle := e.lockCycleFrom(start); cycle != nil {
			return cycle
		}
	}
	return nil
}

// lockCycleFrom returns the lock cycle that the chain of waits from start reaches, first the
// goroutine where the chain enters it, or nil. A cycle closes when a goroutine blocks in Lock
// (a goroutine acquires a mutex only while it runs, so no other event adds a wait), so checking
// from the goroutine that just blocked finds every new cycle, in steps proportional to the
// chain, not to the number of goroutines.
func (e *Exec) lockCycleFrom(start *goroutine) []*goroutine {
	entry := e.lockCycleEntry(start)
	if entry == nil {
		return nil
	}
	cycle := []*goroutine{entry}
	for g := e.lockHolder(entry); g != entry; g = e.lockHolder(g) {
		cycle = append(cycle, g)
	}
	return cycle
}

// lockCycleEntry returns the goroutine where the chain of waits from start enters a lock
// cycle, or nil when it ends, building nothing: it runs at every Lock that blocks. Floyd's
// two walkers, one twice as fast, meet if and only if the chain loops; then one walker from
// start and one from where they met, at one step each, meet where the loop begins.
func (e *Exec) lockCycleEntry(start *goroutine) *goroutine {
	slow, fast := start, start
	for {
		if fast = e.lockHolder(fast); fast == nil {
			return nil
		}
		if fast = e.lockHolder(fast); fast == nil {
			return nil
		}
		if slow = e.lockHolder(slow); slow == fast {
			break
		}
	}
	for slow = start; slow != fast; slow, fast = e.lockHolder(slow), e.lockHolder(fast) {
	}
	return slow
}

// lockHolder returns the goroutine that alone can unlock the mutex g waits to lock — the one
// that locked it, unless it may have handed it on to another (handedOff) — or nil.
func (e *Exec) lockHolder(g *goroutine) *goroutine {
	if g.done || g.enabled() || g.pending.Kind != OpLock {
		return nil
	}
	m, ok := g.blockedOn.(*mutexState)
	if !ok || !m.locked || m.owner < 0 || int(m.owner) >= len(e.gs) || e.handedOff(m) {
		return nil
	}
	return e.gs[m.owner]
}

// deadlockCycle reports a lock cycle as a deadlock, and says whether there was one.
func (e *Exec) deadlockCycle() bool {
	cycle := e.lockCycle()
	if cycle == nil {
		return false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d goroutines wait for each other's locks, while others go on:", len(cycle))
	for i, g := range cycle {
		fmt.Fprintf(&b, "\n\t%v %s (the mutex %v locked)", g.id, g.pending, cycle[(i+1)%len(cycle)].id)
	}
	e.fail(&Bug{Kind: Deadlock, Message: b.String(), G: cycle[0].id, Pos: cycle[0].pending.Pos}, nil)
	return true
}

// stepBound ends an execution that reached the step bound, and reports whether it did: an
// adaptive bound (Config.MaxSteps 0, adaptiveBound) that may still grow doubles instead,
// unless the execution shows the evidence of a livelock, a hang or a lock cycle, which it
// reports as today.
func (e *Exec) stepBound() (ended bool) {
	if e.deadlockCycle() {
		e.atBound = true
		return true
	}
	// The window is longer than the fairness rules take to make a passed-over goroutine
	// run, and a pending timer is no livelock: a goroutine sleeping until it fires will
	// change what the others poll (they spin until a sleeper wakes, time passing with steps).
	n := max(livelockWindow, (starveFactor+1)*e.fairSteps)
	window := e.trace[len(e.trace)-min(n, (len(e.trace)+1)/2):]
	polling := len(window) > 0 && len(e.clock.timers) == 0
	for _, s := range window {
		if !s.isChoice() && s.op().IsWrite() {
			polling = false
			break
		}
	}
	if polling {
		if msg := e.spinning(window); msg != "" {
			e.atBound = true
			e.fail(&Bug{Kind: Livelock, Message: msg}, e.cur)
			return true
		}
	}
	if e.stepLimit > e.maxSteps {
		// No evidence of a livelock: the program still changes state (sends, locks, writes)
		// or reads its way through memory, a test that runs long. Its end, and the test's
		// final checks, are worth more than a cut.
		e.maxSteps = min(2*e.maxSteps, e.stepLimit)
		return false
	}
	e.atBound = true
	e.result.StepBound = true
	e.end()
	return true
}

// spinLimit is the longest loop, in steps, that the step bound takes for a spin: a spin
// re-reads a flag or a few (a goroutine polling 8 counters until one moves); a goroutine
// walking a chain of 300 nodes (a hash map's collision chain, a skip list) again and again
// is computing, however often it walks it.
const spinLimit = 32

// spinning returns the message of the livelock or hang that window, a window of steps that
// only looked while no timer was pending, is evidence of — or "" when it is none. Nothing in
// the window changed anything, so what each goroutine reads cannot change until one of them
// writes; the evidence that none ever will is that each goroutine that ran repeats one loop of
// at most spinLimit steps, the same operations at the same locations, over the same few
// locations again and again (lookedAgain). A goroutine that reads its way through memory —
// lookups of the keys of a long chain, a sum over a large table — repeats no short loop: it is
// a long computation, the step bound. A goroutine alone, nothing else able to run, spinning on
// what nothing can change is a hang; goroutines taking turns, each spinning on what the others
// would have to change, a livelock — and so is one spinning while the strategy passed over the
// others that could run (with the fairness rule off, a schedule Go's scheduler would not keep
// to), as before.
func (e *Exec) spinning(window []traceStep) string {
	where, again := lookedAgain(window)
	if !again {
		return ""
	}
	byG := make(map[GID][]traceStep)
	var order []GID
	for _, s := range window {
		if s.isChoice() {
			continue
		}
		if _, ok := byG[s.g]; !ok {
			order = append(order, s.g)
		}
		byG[s.g] = append(byG[s.g], s)
	}
	longest := 0
	for _, g := range order {
		p := loopPeriod(byG[g])
		if p == 0 {
			return ""
		}
		longest = max(longest, p)
	}
	if len(order) > 1 || e.nEnabled > 1 {
		return fmt.Sprintf("no end after %d steps, and in the last %d the goroutines only looked (reads, atomic loads, yields), each repeating a loop of at most %d step(s), %s over and over, and changed nothing: a livelock", e.steps, len(window), longest, where)
	}
	g := order[0]
	return fmt.Sprintf("no end after %d steps: %v alone ran the last %d, repeating a loop of %d step(s) (%s), %s over and over, and changed nothing; no other goroutine can run, so nothing it reads can change: a hang", e.steps, g, len(window), longest, e.describeLoop(byG[g][:longest]), where)
}

// loopPeriod returns the shortest period, at most spinLimit, with which steps (one
// goroutine's) repeat — each step the same operation at the same position on the same object
// as the one period steps before — or 0 when they repeat none (or too few steps to tell).
func loopPeriod(steps []traceStep) int {
	for p := 1; p <= spinLimit && 2*p <= len(steps); p++ {
		i := p
		for ; i < len(steps); i++ {
			if steps[i].obj != steps[i-p].obj || steps[i].code != steps[i-p].code {
				break
			}
		}
		if i == len(steps) {
			return p
		}
	}
	return 0
}

// describeLoop says what one period of a spin does: "atomic.load at x.go:5", its operations
// and positions, each once, the first three.
func (e *Exec) describeLoop(loop []traceStep) string {
	var parts []string
	seen := make(map[uint32]bool)
	for _, s := range loop {
		if seen[s.code] {
			continue
		}
		seen[s.code] = true
		if len(parts) == 3 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprintf("%s at %s", s.op(), RelativePos(e.root, e.positions.at(s.pos()))))
	}
	return strings.Join(parts, ", ")
}

// lookedAgain reports whether the looks of window (steps that only looked) went over the same
// locations again and again — each location at least twice on average, yields counting as
// looks at none — and says where, for the livelock's message.
func lookedAgain(window []traceStep) (where string, again bool) {
	locations := make(map[uintptr]struct{})
	looks := 0
	for _, s := range window {
		if s.isChoice() {
			continue
		}
		looks++
		if s.obj != 0 {
			locations[s.obj] = struct{}{}
		}
	}
	n := len(locations)
	switch n {
	case 0:
		where = "yielding"
	case 1:
		where = "at one location"
	default:
		where = fmt.Sprintf("at the same %d locations", n)
	}
	return where, 2*n <= looks
}

// BackgroundNotice describes the goroutines that went on after the test returned
// (Result.Background), in the schedules counted, for a person: one line per distinct go
// statement and operation, not per goroutine.
type BackgroundNotice struct {
	Schedules  int // executions that ended with background goroutines
	Goroutines []GoroutineState
}

func (n *BackgroundNotice) String() string {
	type key struct{ created, op Pos }
	count := map[key]int{}
	var order []key
	for _, g := range n.Goroutines {
		k := key{g.Created, g.Pending.String()}
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "in %d schedule(s) the test returned while %d goroutine(s) went on (go test does not fail this; -strict-leaks reports it as a leak):", n.Schedules, len(n.Goroutines))
	for _, k := range order {
		fmt.Fprintf(&b, "\n\t")
		if c := count[k]; c > 1 {
			fmt.Fprintf(&b, "%d× ", c)
		}
		fmt.Fprintf(&b, "started at %s: %s", k.created, k.op)
	}
	return b.String()
}

// writeBlocked lists blocked goroutines one line per pending operation, in the order of their
// first goroutine: "\tG1 send at x.go:3", or for several waiting at the same operation
// "\tG1–G5000 (5000 goroutines) send at x.go:3", so that 50,000 goroutines blocked alike
// are one line.
func writeBlocked(b *strings.Builder, gs []*goroutine) {
	var order []Op
	ids := map[Op][]GID{}
	for _, g := range gs {
		op := Op{Kind: g.pending.Kind, Pos: g.pending.Pos} // the objects may differ: the lines would not
		if len(ids[op]) == 0 {
			order = append(order, op)
		}
		ids[op] = append(ids[op], g.id)
	}
	for _, op := range order {
		list := ids[op]
		if len(list) == 1 {
			fmt.Fprintf(b, "\n\t%v %s", list[0], op)
			continue
		}
		fmt.Fprintf(b, "\n\t%s (%d goroutines) %s", GIDRanges(list), len(list), op)
	}
}

// GIDRanges writes goroutine ids, in the order given, with runs of consecutive ids as
// ranges: "G3–G7, G9".
func GIDRanges(ids []GID) string {
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%v–%v", ids[i], ids[j]))
		} else {
			parts = append(parts, ids[i].String())
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
