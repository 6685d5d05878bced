package engine

import (
	"container/heap"
	"math"
	"os"
	"sync/atomic"
	"time"
)

// Epoch is the virtual time at which every execution starts. A fixed instant keeps
// executions that print or compare times reproducible. It is in the middle of every calendar
// period a program may schedule by — half past one on a Wednesday afternoon in mid-June, half
// a minute from the next one — as the instant a test starts at natively is, almost always: a
// job that a cron library runs yearly, monthly, daily, hourly or every minute, on the minute,
// is not due in the first seconds of every execution, as it was when executions started at
// midnight on New Year's Day (robfig/cron's tests saw their yearly job run).
var Epoch = time.Date(2000, time.June, 14, 13, 31, 30, 500_000_000, time.UTC)

// synctestEpoch is where time stands when a testing/synctest bubble starts, as in Go:
// midnight UTC on 2000-01-01.
var synctestEpoch = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

// clock is an execution's virtual clock. Time passes in three ways, all deterministic:
//
//   - When no goroutine is enabled and a timer is pending, the clock jumps to the earliest
//     timer, as testing/synctest does: code that sleeps or waits for a timeout runs without
//     waiting.
//   - Every step takes a little time (pass): 1ns for the first busyDoubling steps after the
//     clock last jumped, then twice as long every busyDoubling steps — up to workStepTime after
//     a step that changed something (a write, a lock, a channel operation: work), unless the
//     program looked at the time in the last busyDoubling steps (time.Now, a deadline
//     context's Err). A program that waits for time to pass — polls a flag, a channel or the
//     clock, or works until a deadline it checks — sees its deadlines come, as it would on a
//     real machine where a busy loop burns real time: a loop bounded by context.WithTimeout,
//     time.AfterFunc or a deadline ends (a one-second deadline after about 40,000 steps, a
//     minute's after about 52,000). A program that works without looking at the time does not
//     see hours pass in a few tens of thousands of steps (80,000 locks and unlocks take about
//     20ms): a test that waits for its workers with a timeout, or checks how long they took,
//     is not failed by a clock that ran away; one that lets workers run while it sleeps still
//     wakes (a 10ms sleep after about 50,000 of their steps). An ordinary test, a few thousand
//     steps between blocking operations, moves the clock by microseconds and fires no timer
//     early.
//   - Reading the clock (Now, Since, Until) moves it by 1ns, so that two readings always
//     differ, as a monotonic clock's do.
type clock struct {
	now int64 // nanoseconds since origin
	// origin is the instant now counts from: Epoch, or inside a testing/synctest bubble the
	// instant that makes the bubble start at synctestEpoch (SynctestTest).
	origin time.Time
	seq    uint64
	timers timerHeap
	// busy counts the steps since the clock last jumped, and stepTime is the time a step
	// takes now (pass); due is the earliest timer's deadline (noTimer when none), kept so
	// that a step that fires nothing reads no heap.
	busy     int
	stepTime int64
	due      int64
	// wake is when pass must do more than count: the earlier of due and the instant the
	// time a step takes doubles.
	wake int64
	// jumps counts the jumps of the clock (advance).
	jumps int
	// still stops the time steps and readings take, inside a testing/synctest bubble
	// (synctest.go), where time moves only when every goroutine is blocked.
	still bool
}

// stand stops (or restarts) the passing of time with steps and readings.
func (c *clock) stand(still bool) {
	c.still = still
	c.stepTime = 1
	if still {
		c.stepTime = 0
	}
	c.busy = 0
	c.setWake()
}

// noTimer is clock.due when no timer is pending.
const noTimer = math.MaxInt64

// setDue updates due after the heap changed.
func (c *clock) setDue() {
	c.due = noTimer
	if len(c.timers) > 0 {
		c.due = c.timers[0].when
	}
	c.setWake()
}

// setWake computes wake from due, busy and stepTime. Above workStepTime it is now: every
// step goes through passSlow, which looks at what the last one did.
func (c *clock) setWake() {
	c.wake = c.due
	if c.stepTime > workStepTime {
		c.wake = c.now
		return
	}
	if !c.still && c.busy/busyDoubling < maxStepShift {
		if d := c.now + int64(busyDoubling-c.busy%busyDoubling)*c.stepTime; d < c.wake {
			c.wake = d
		}
	}
}

// busyDoubling is the number of steps after which the time a step takes doubles (pass).
const busyDoubling = 2048

// workStepTime is the most a step takes after a step that changed something (about the
// time a contended lock or a channel handoff takes on a real machine): the doubling of the
// time a step takes goes on from there only while the program only looks (passSlow).
const (
	workStepShift = 8
	workStepTime  = 1 << workStepShift
)

// maxStepShift bounds the time one step takes (about 17 minutes), so that the clock cannot
// overflow in any execution the step bound allows.
const maxStepShift = 40

// pass is the time one step takes (see clock): it moves the clock, and fires the timers that
// are due then.
func (c *clock) pass(e *Exec) {
	// Small enough to be inlined into decide: the rest is passSlow.
	c.busy++
	c.now += c.stepTime
	if c.now >= c.wake {
		c.passSlow(e)
	}
}

// passSlow doubles the time a step takes every busyDoubling steps, caps it at workStepTime
// after a step that changed something, and fires the timers due.
func (c *clock) passSlow(e *Exec) {
	if c.stepTime > workStepTime && e.lastOp.IsWrite() && e.lookedAt != e.steps {
		if e.steps-e.clockReadAt > busyDoubling {
			// The step just executed worked: this step takes workStepTime, the first of those
			// from which the doubling goes on.
			c.now -= c.stepTime - workStepTime
			c.stepTime = workStepTime
			c.busy = workStepShift*busyDoubling + 1
		} else if e.clockAheadAt < 0 {
			// It worked, but the program read the clock lately, so time goes on faster
			// than any machine does its work: what the program then sees of the time
			// depends on how fast the clock ran, not on the schedule (clockAheadNotice).
			e.clockAheadAt = e.steps
		}
	}
	if !c.still && c.busy%busyDoubling == 0 && c.busy/busyDoubling <= maxStepShift {
		c.stepTime = 1 << (c.busy / busyDoubling)
	}
	if c.now >= c.due {
		c.fire(e) // sets wake
		return
	}
	c.setWake()
}

// read is a reading of the clock: it moves it by 1ns, so that no two readings are equal.
func (c *clock) read() time.Time {
	if !c.still {
		c.now++
	}
	return c.Now()
}

// vtimer is a timer on the virtual clock. fire runs on the goroutine that advanced the clock,
// inside the engine: it may enable goroutines, change shadow objects, or start a goroutine.
type vtimer struct {
	when  int64
	seq   uint64 // tie-break: timers due at the same instant fire in the order they were set
	index int    // position in the heap, -1 when not pending
	fire  func(e *Exec, t *vtimer)
	// period re-arms the timer after it fires (tickers); 0 for one-shot timers.
	period int64
	// data belongs to whoever set the timer.
	data any
	// site is where the timer was set (a sleep, a time.After, a context's deadline): a timer
	// set again at a site whose timer fired after the test returned is recurring
	// (background.go).
	site Pos
}

func (c *clock) reset() {
	c.now = 0
	c.origin = Epoch
	c.seq = 0
	c.busy = 0
	c.stepTime = 1
	c.still = false
	c.jumps = 0
	c.due = noTimer
	c.setWake()
	for _, t := range c.timers {
		t.index = -1
	}
	c.timers = c.timers[:0]
}

// Now is the current virtual time.
func (c *clock) Now() time.Time { return c.origin.Add(time.Duration(c.now)) }

// start schedules t to fire after d (negative d fires at the current instant, as Go does).
func (c *clock) start(t *vtimer, d time.Duration) {
	if t.index >= 0 {
		heap.Remove(&c.timers, t.index)
	}
	if d < 0 {
		d = 0
	}
	t.when = c.now + int64(d)
	c.seq++
	t.seq = c.seq
	heap.Push(&c.timers, t)
	c.setDue()
}

// stop removes t from the pending timers and reports whether it was pending.
func (c *clock) stop(t *vtimer) bool {
	if t.index < 0 {
		return false
	}
	heap.Remove(&c.timers, t.index)
	c.setDue()
	return true
}

// advance moves the clock to the earliest pending timer and fires every timer due then. It
// reports false when no timer is pending.
func (c *clock) advance(e *Exec) bool {
	if len(c.timers) == 0 {
		return false
	}
	if w := c.timers[0].when; w > c.now {
		c.now = w
	}
	c.busy, c.stepTime = 0, 1
	c.jumps++
	if c.still {
		c.stepTime = 0
	}
	c.fire(e) // sets wake
	return true
}

// fire fires every timer due at the current instant, in the order they are due. A ticker
// fires once however many of its periods have gone by, and is re-armed for its first period
// after now: the ticks in between are dropped, as Go drops the ticks of a slow receiver.
func (c *clock) fire(e *Exec) {
	for len(c.timers) > 0 && c.timers[0].when <= c.now {
		t := heap.Pop(&c.timers).(*vtimer)
		if t.period > 0 {
			t.when += t.period
			if t.when <= c.now {
				t.when += (c.now - t.when + t.period) / t.period * t.period
			}
			c.seq++
			t.seq = c.seq
			heap.Push(&c.timers, t)
		}
		if t.site != "" && e.testReturned() {
			e.firedAfterTest(t.site)
		}
		t.fire(e, t)
	}
	c.setDue()
}

type timerHeap []*vtimer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].when != h[j].when {
		return h[i].when < h[j].when
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *timerHeap) Push(x any) {
	t := x.(*vtimer)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	n := len(old)
	t := old[n-1]
	old[n-1] = nil
	t.index = -1
	*h = old[:n-1]
	return t
}

// sleeper is the blocker of a goroutine in Sleep.
type sleeper struct{}

func (sleeper) ready(g *goroutine) bool { return g.e.clock.now >= g.wakeAt }

func wakeSleeper(e *Exec, t *vtimer) {
	g := t.data.(*goroutine)
	e.setEnabled(g, g.blockedOn.ready(g))
}

// Sleep is time.Sleep on the virtual clock. It is a scheduling point even for d <= 0.
func Sleep(d time.Duration, pos Pos) {
	e, g := current(pos)
	if g == nil {
		if d > 0 && outside(e) {
			outsideNanos.Add(int64(d))
		}
		time.Sleep(d)
		return
	}
	if d <= 0 {
		e.point(g, OpSleep, 0, pos)
		return
	}
	g.wakeAt = e.clock.now + int64(d)
	t := &vtimer{index: -1, fire: wakeSleeper, data: g, site: pos}
	e.clock.start(t, d)
	e.pointWait(g, OpSleep, 0, pos, sleeper{})
}

// Now is time.Now on the virtual clock. Reading the clock is not a scheduling point.
func Now() time.Time {
	e := active.Load()
	if e != nil && e.caller() != nil {
		e.clockReadAt = e.steps
		return e.clock.read()
	}
	if outside(e) {
		return outsideNow()
	}
	return time.Now()
}

// Readings of the clock outside executions: in a package's initialization (var start =
// time.Now()), in TestMain, between explorations. They are on the executions' timeline, which
// never runs backwards: they start a millisecond before Epoch (preRun), where every execution
// starts, and each moves this clock by 1ns (as a reading inside an execution moves its clock),
// so that time.Since(start) in an execution is about a millisecond, as natively, and not −26
// years, a real start time set against a virtual clock in 2000 (a published pool's test failed
// on it). A sleep outside an execution sleeps for real and moves this clock as long, so that a
// TestMain polling until a deadline (a server that should have started) still reaches it; a
// million readings, or sleeps adding up to a millisecond, take it past Epoch, after which an
// execution's times come before those readings. Nothing else moves it: the readings of a
// package's initialization and TestMain are the same in every process of the test binary, so
// a schedule replayed in a fresh process sees the times it saw where it was recorded. A
// process of interleave stress, which runs its tests for real, reads the real clock
// (INTERLEAVE_STRESS, stress.EnvPlan, is set from its start), as does a goroutine the engine
// does not control while an execution runs.
const preRun = time.Millisecond

var (
	outsideVirtual = os.Getenv("INTERLEAVE_STRESS") == ""
	// outsideNanos is how far the clock outside executions has moved since Epoch-preRun.
	outsideNanos atomic.Int64
)

// outside reports whether a reading of the clock by a goroutine the engine does not control
// is on the clock outside executions: no execution is active, and no stress mode.
func outside(e *Exec) bool { return e == nil && outsideVirtual && stressing.Load() == nil }

// outsideNow is a reading of the clock outside executions.
func outsideNow() time.Time {
	return Epoch.Add(time.Duration(outsideNanos.Add(1)) - preRun)
}

// Since is time.Since on the virtual clock.
func Since(t time.Time) time.Duration { return Now().Sub(t) }

// Until is time.Until on the virtual clock.
func Until(t time.Time) time.Duration { return t.Sub(Now()) }
