package engine

import (
	"fmt"
	"math/bits"
	"strings"
	"time"
)

// A sleep orders nothing. Go promises nothing about how long a runnable goroutine waits to
// run: one started before time.Sleep(time.Millisecond) may not have run when the sleeper
// wakes, on a loaded machine, so a test that calls wg.Add inside the goroutine and Wait after
// the sleep, or that checks the goroutine's effect after it, can fail. The virtual clock moves
// only when nothing can run (clock.go), which makes every sleep a perfect handshake and these
// failures unreachable. With Config.Sleeps other than SleepsOrder, an execution may move the
// clock to the next timer while goroutines are runnable: a delay of those goroutines past the
// timer, explored as a scheduling choice, as delay bounding explores its delays (SCTBench
// §2.4). The choice is offered at the decision right after a goroutine began to sleep
// (time.Sleep) while others are runnable — the moment a test relies on the sleep to let them
// run — when the next timer is no more than SleepDelayMax ahead, while the execution has
// delays left (SleepDelays), outside a testing/synctest bubble (whose clock moves only when
// every goroutine is blocked, by Go's definition) and before the test returns. Not at every
// decision: a ticker of a microsecond is always due soon, and offering a delay at every step
// would put one in nearly every execution of a random walk, where a bug that needed none
// would be taken for one that did (issue 15's torn record, found by a ticker firing between
// two critical sections, became a notice). A goroutine waiting on a timer's channel instead of
// sleeping (select with time.After) is not delayed past it. It is a data choice (Strategy.Choose, two
// alternatives: 0 waits, 1 moves the clock), recorded in the schedule, so that replays make
// it again; the systematic strategies' delay bounding counts it as one delay.
//
// What a delay needed is said with the bug it led to: "G2 had not run for 1ms when G0 woke
// (sleep at x_test.go:12)". Whether such a bug is a failure is the rule of SleepMode.

// SleepMode says whether executions may delay runnable goroutines past a timer, and what a
// bug that needed such a delay is.
type SleepMode uint8

const (
	// SleepsOrder moves the clock only when no goroutine can run: every runnable goroutine
	// runs (to a block or its end) before a sleeper wakes. Engine's default.
	SleepsOrder SleepMode = iota
	// SleepsNotice explores the delays, and reports a bug that needed one as a notice, not a
	// failure: the exploration goes on (Report.Notices). The command line's default.
	SleepsNotice
	// SleepsFail explores the delays and reports a bug that needed one as a failure, with
	// what it needed in its message.
	SleepsFail
)

var sleepModeNames = [...]string{SleepsOrder: "order", SleepsNotice: "notice", SleepsFail: "fail"}

func (m SleepMode) String() string {
	if int(m) < len(sleepModeNames) {
		return sleepModeNames[m]
	}
	return fmt.Sprintf("sleeps(%d)", uint8(m))
}

// ParseSleepMode is the inverse of SleepMode.String.
func ParseSleepMode(s string) (SleepMode, error) {
	for m, n := range sleepModeNames {
		if n == s {
			return SleepMode(m), nil
		}
	}
	return 0, fmt.Errorf("sleeps %q: want order, notice or fail", s)
}

// DefaultSleepDelayMax is the Config.SleepDelayMax used when it is 0: the longest a runnable
// goroutine is delayed past a timer. 10ms is the time slice of Go's scheduler (sysmon
// preempts a goroutine that ran 10ms): a goroutine behind one other runnable goroutine on a
// busy processor waits that long, and a test that sleeps longer to let a goroutine run is
// overtaken only on a machine far more loaded than a test run's, which is not explored.
const DefaultSleepDelayMax = 10 * time.Millisecond

// DefaultSleepDelays is the Config.SleepDelays used when it is 0: the delays one execution
// may take. One delay reaches every bug that needs one goroutine to be overtaken by one sleep.
const DefaultSleepDelays = 1

// sleepDelays returns the delays an execution of c may take and the longest one, in
// nanoseconds: 0 when c explores none.
func (c *Config) sleepDelays() (int, int64) {
	if c.Sleeps == SleepsOrder || c.SleepDelays < 0 {
		return 0, 0
	}
	n, d := c.SleepDelays, c.SleepDelayMax
	if n == 0 {
		n = DefaultSleepDelays
	}
	if d <= 0 {
		d = DefaultSleepDelayMax
	}
	return n, int64(d)
}

// mayDelay reports whether the decision being made may move the clock to the next timer
// while goroutines are runnable: the goroutine that ran last has just begun to sleep.
func (e *Exec) mayDelay() bool {
	c := &e.clock
	if e.delaysLeft == 0 || c.due == noTimer || c.due-c.now > e.delayMax || c.still || e.last < 0 || e.en.has(e.last) {
		return false
	}
	g := e.gs[e.last]
	return !g.done && g.pending.Kind == OpSleep && g.blockedOn != nil && !e.testReturned()
}

// offerDelay asks the strategy whether the clock moves to the next timer now, past the
// runnable goroutines, and moves it if so. It returns false when the strategy's answer ended
// the execution.
//
//go:noinline
func (e *Exec) offerDelay() bool {
	t := e.clock.timers[0]
	c := &e.choice
	*c = Choice{N: 2, Step: e.steps, G: e.last, Op: Op{Kind: OpTimer, Pos: t.site}}
	k := e.strategy.Choose(c)
	if k < 0 || k >= 2 {
		e.abortStrategy(fmt.Sprintf("step %d: strategy %s chose alternative %d of 2 (a delay past the timer at %s)", e.steps, e.strategy.Name(), k, t.site))
		return false
	}
	e.trace = append(e.trace, traceStep{g: e.last, obj: uintptr(len(e.choices)), code: traceChoice | traceCode(OpTimer, e.positions.id(t.site))})
	e.choices = append(e.choices, choiceRecord{int32(k), 2})
	if k == 0 {
		return true
	}
	note := e.delayNote()
	e.delaysLeft--
	e.delays = append(e.delays, note)
	e.clock.advance(e)
	return true
}

// delayNote says what moving the clock to the next timer now does: which runnable goroutines
// had not run for how long when which goroutine woke (or which timer fired).
func (e *Exec) delayNote() string {
	c := &e.clock
	when := c.timers[0].when
	var waiting []string
	for i, w := range e.en.words {
		for ; w != 0 && len(waiting) <= 3; w &= w - 1 {
			waiting = append(waiting, GID(i<<6+bits.TrailingZeros64(w)).String())
		}
	}
	if len(waiting) > 3 {
		waiting = append(waiting[:3], "…")
	}
	var woke []string
	for _, t := range c.timers {
		if t.when != when {
			continue
		}
		if g, ok := t.data.(*goroutine); ok {
			woke = append(woke, fmt.Sprintf("%v woke (sleep at %s)", g.id, t.site))
		} else {
			woke = append(woke, fmt.Sprintf("the timer set at %s fired", t.site))
		}
	}
	return fmt.Sprintf("%s had not run for %v when %s", strings.Join(waiting, ", "), roughly(time.Duration(when-c.now)), strings.Join(woke, " and "))
}

// roughly rounds d to three significant digits: the clock passed a few nanoseconds with the
// steps since the sleep began, and a delay of 999.999µs reads better as the 1ms slept.
func roughly(d time.Duration) time.Duration {
	unit := time.Duration(1)
	for unit*1000 <= d {
		unit *= 10
	}
	return d.Round(unit)
}

// delayed is what a bug recorded now needed: the delays the execution took, "" when none.
func (e *Exec) delayed() string {
	if len(e.delays) == 0 {
		return ""
	}
	return strings.Join(e.delays, "; ")
}

// sleepNotice is the notice of a bug that needed a goroutine to be delayed past a sleep or a
// timer, under SleepsNotice: not a failure.
func sleepNotice(n int, b *Bug) string {
	msg, _, _ := strings.Cut(b.Message, "\n")
	return fmt.Sprintf("schedule %d failed only because a runnable goroutine was delayed past a sleep (%s): %s at %s: %s. "+
		"Go does not promise a goroutine runs during a sleep, but this fails only on a loaded machine; -sleeps=fail reports it as a failure with its schedule",
		n, b.Delayed, b.Kind, b.Pos, msg)
}
