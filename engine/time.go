package engine

import (
	"time"
	"unsafe"
)

// Timers and tickers on the virtual clock.
//
// A timer or ticker made under control keeps its real type: a *time.Timer or *time.Ticker
// whose C is a channel the engine made (chanMake). Its state is a shadow, timerState, found by
// the pointer, and its methods are called through TimerStop, TimerReset, TickerStop and
// TickerReset (the instrumenter rewrites t.Stop() and t.Reset(d)). Not every call can be
// rewritten: one through an interface (a *time.Timer held as a Stop() bool, clockwork's
// realTimer{*time.Timer} as a clockwork.Timer) reaches package time's method, which panics on
// a timer the runtime did not make ("Stop called on uninitialized Timer"). So the timer is a
// real one, made by the runtime for a duration it never reaches (neverFires), and it tells
// the engine what such a call did: a real Stop leaves it stopped, and the virtual timer, when
// it fires, fires only if the real one is still pending (fireTimer). A real Reset through an
// interface is not seen (the virtual timer keeps its deadline). Tickers are real ones too,
// so that an interface's Reset does not panic; a ticker stopped that way keeps ticking on the
// virtual clock, into a channel nobody reads any more.
// Outside an execution every function here is the real one of package time.
//
// The semantics are those of Go 1.23 and later:
//
//   - Timer channels are synchronous: after Stop or Reset returns, no value prepared before
//     the call is received. The shadow channel has a buffer of one value, which the clock
//     fills when the timer fires and Stop and Reset drain (chanDrain). Stop and Reset report
//     whether the timer was active: still pending, or fired with its value not yet received.
//     (One visible difference: len and cap of the channel are 1 where Go reports 0.)
//   - A ticker whose receiver is slow drops ticks: a tick finding the buffer full is lost.
//   - The values sent are the virtual time of firing, the value Now returns at that instant.
//   - Making, stopping and resetting a timer or ticker is a scheduling point (OpTimer);
//     receiving from its channel is an ordinary receive, which blocks until the virtual clock
//     reaches the deadline. The clock only moves when no goroutine is enabled.
//   - An AfterFunc callback runs in a new controlled goroutine, started lazily by the clock
//     (its first step is OpStart), every time the timer fires.
//
// A ticker nobody receives from would make the clock tick forever once every goroutine is
// blocked or done. When every pending timer is a ticker whose ticks are being dropped, and
// that was already so one tick earlier with no step in between, nothing can change any more:
// the tickers are suspended, so that the execution ends (or its deadlock is reported). The
// suspension cannot be observed, since no goroutine runs again before the execution ends.

// neverFires is the duration of the real timers behind virtual ones: about 146 years.
const neverFires = time.Duration(1 << 62)

// timerState is the shadow of a timer or ticker made under control.
type timerState struct {
	vt  vtimer
	c   chan time.Time // nil for an AfterFunc timer
	f   func()         // AfterFunc callback
	pos Pos
	// keep holds the *time.Timer or *time.Ticker, so that its address is not reused while
	// the shadow exists. A timer's is pending on the real clock until a Stop the engine did
	// not see, or the virtual timer's firing, stops it (fireTimer).
	keep any

	// Tickers: dropSteps is the step count at the last dropped tick (-1: none); frozenSteps
	// and frozenAt record the last dropped tick at which every pending timer was a ticker
	// dropping its ticks (see fireTicker).
	dropSteps   int
	frozenSteps int
	frozenAt    int64
}

func newTimerState(keep any, c chan time.Time, f func(), period time.Duration, pos Pos) *timerState {
	s := &timerState{c: c, f: f, pos: pos, keep: keep, dropSteps: -1, frozenSteps: -1}
	s.vt = vtimer{index: -1, fire: fireTimer, data: s, site: pos}
	if period > 0 {
		s.vt.fire = fireTicker
		s.vt.period = int64(period)
	}
	return s
}

// timerOf returns the shadow of t, or nil when t was not made in this execution.
func timerOf(e *Exec, t *time.Timer) *timerState {
	if v, ok := e.shadow[shadowKey{uintptr(unsafe.Pointer(t)), shadowTimer}]; ok {
		return v.(*timerState)
	}
	return nil
}

// tickerOf returns the shadow of t, or nil when t was not made in this execution.
func tickerOf(e *Exec, t *time.Ticker) *timerState {
	if v, ok := e.shadow[shadowKey{uintptr(unsafe.Pointer(t)), shadowTicker}]; ok {
		return v.(*timerState)
	}
	return nil
}

// fireTimer fires a one-shot timer: its value becomes available on the channel, or its
// callback starts in a new goroutine.
func fireTimer(e *Exec, vt *vtimer) {
	s := vt.data.(*timerState)
	if t, ok := s.keep.(*time.Timer); ok && !t.Stop() {
		return // stopped through an interface: package time's Stop
	}
	if s.f != nil {
		e.spawn(nil, s.f, s.pos, true)
		return
	}
	chanDeliver(e, s.c, e.clock.Now())
}

// fireTicker delivers a tick, or drops it when the previous one was not received yet. The
// clock has already re-armed the ticker for its next period.
func fireTicker(e *Exec, vt *vtimer) {
	s := vt.data.(*timerState)
	if chanDeliver(e, s.c, e.clock.Now()) {
		return
	}
	s.dropSteps = e.steps
	if e.nEnabled > 0 || !onlyDroppingTickers(e) {
		return
	}
	if s.frozenSteps == e.steps && s.frozenAt < e.clock.now {
		// Since s's previous frozen tick no goroutine ran, no timer other than dropping
		// tickers was pending (so none was created, and none fired), and no poll enabled
		// anybody: every future tick is dropped, and nothing else can happen.
		for len(e.clock.timers) > 0 {
			e.clock.stop(e.clock.timers[0])
		}
		return
	}
	s.frozenSteps, s.frozenAt = e.steps, e.clock.now
}

// onlyDroppingTickers reports whether every pending timer is a ticker that dropped a tick
// since the last step: its buffer is full and stays full until some goroutine runs.
func onlyDroppingTickers(e *Exec) bool {
	for _, t := range e.clock.timers {
		s, ok := t.data.(*timerState)
		if !ok || t.period == 0 || s.dropSteps != e.steps {
			return false
		}
	}
	return true
}

// stopTimer stops s and drains its channel: whether it was active.
func stopTimer(e *Exec, s *timerState) bool {
	active := e.clock.stop(&s.vt)
	if s.c != nil && chanDrain(e, s.c) > 0 {
		active = true
	}
	return active
}

// NewTimer is time.NewTimer(d) on the virtual clock: the timer's channel receives the virtual
// time once d has elapsed.
func NewTimer(d time.Duration, pos Pos) *time.Timer {
	e, g := current(pos)
	if g == nil {
		return time.NewTimer(d)
	}
	c := chanMake[time.Time](e, 1)
	t := time.NewTimer(neverFires)
	t.C = c
	s := newTimerState(t, c, nil, 0, pos)
	e.shadow[shadowKey{uintptr(unsafe.Pointer(t)), shadowTimer}] = s
	e.point(g, OpTimer, uintptr(unsafe.Pointer(t)), pos)
	e.clock.start(&s.vt, d)
	return t
}

// After is time.After(d) on the virtual clock.
func After(d time.Duration, pos Pos) <-chan time.Time {
	return NewTimer(d, pos).C
}

// AfterFunc is time.AfterFunc(d, f) on the virtual clock: once d has elapsed, f runs in a new
// controlled goroutine. The timer's channel is nil; TimerStop and TimerReset work on it.
func AfterFunc(d time.Duration, f func(), pos Pos) *time.Timer {
	e, g := current(pos)
	if g == nil {
		return time.AfterFunc(d, f)
	}
	t := time.AfterFunc(neverFires, func() {})
	s := newTimerState(t, nil, f, 0, pos)
	e.shadow[shadowKey{uintptr(unsafe.Pointer(t)), shadowTimer}] = s
	e.point(g, OpTimer, uintptr(unsafe.Pointer(t)), pos)
	e.clock.start(&s.vt, d)
	return t
}

// TimerStop is t.Stop(). It reports whether the call stopped the timer: it had not fired, or
// (a channel timer) its value had not been received, and now never will be. For an AfterFunc
// timer, false means that f has been started (or the timer was stopped already).
func TimerStop(t *time.Timer, pos Pos) bool {
	e, g := current(pos)
	if g == nil {
		return t.Stop()
	}
	s := timerOf(e, t)
	if s == nil {
		// Not made in this execution (a real timer): its channel is foreign.
		e.point(g, OpTimer, uintptr(unsafe.Pointer(t)), pos)
		return t.Stop()
	}
	e.point(g, OpTimer, uintptr(unsafe.Pointer(t)), pos)
	t.Stop()
	return stopTimer(e, s)
}

// TimerReset is t.Reset(d): the timer fires again after d, and no value prepared before the
// call is received after it. It reports whether the timer was active, as TimerStop does.
func TimerReset(t *time.Timer, d time.Duration, pos Pos) bool {
	e, g := current(pos)
	if g == nil {
		return t.Reset(d)
	}
	s := timerOf(e, t)
	if s == nil {
		e.point(g, OpTimer, uintptr(unsafe.Pointer(t)), pos)
		return t.Reset(d)
	}
	e.point(g, OpTimer, uintptr(unsafe.Pointer(t)), pos)
	active := stopTimer(e, s)
	t.Reset(neverFires)
	e.clock.start(&s.vt, d)
	return active
}

// NewTicker is time.NewTicker(d) on the virtual clock: the ticker's channel receives the
// virtual time every d, dropping ticks for a slow receiver. It panics if d <= 0.
func NewTicker(d time.Duration, pos Pos) *time.Ticker {
	e, g := current(pos)
	if g == nil {
		return time.NewTicker(d)
	}
	e.point(g, OpTimer, 0, pos)
	if d <= 0 {
		panic("non-positive interval for NewTicker")
	}
	c := chanMake[time.Time](e, 1)
	t := time.NewTicker(neverFires)
	t.C = c
	s := newTimerState(t, c, nil, d, pos)
	e.shadow[shadowKey{uintptr(unsafe.Pointer(t)), shadowTicker}] = s
	e.clock.start(&s.vt, d)
	return t
}

// Tick is time.Tick(d) on the virtual clock. It returns nil if d <= 0.
func Tick(d time.Duration, pos Pos) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	return NewTicker(d, pos).C
}

// TickerStop is t.Stop(): no more ticks are sent, and no tick prepared before the call is
// received after it.
func TickerStop(t *time.Ticker, pos Pos) {
	e, g := current(pos)
	if g == nil {
		t.Stop()
		return
	}
	e.point(g, OpTimer, uintptr(unsafe.Pointer(t)), pos)
	if s := tickerOf(e, t); s != nil {
		stopTimer(e, s)
		return
	}
	t.Stop()
}

// TickerReset is t.Reset(d): the ticker restarts with period d (even if it was stopped), the
// next tick coming d from now; no tick prepared before the call is received after it. It
// panics if d <= 0.
func TickerReset(t *time.Ticker, d time.Duration, pos Pos) {
	e, g := current(pos)
	if g == nil {
		t.Reset(d)
		return
	}
	e.point(g, OpTimer, uintptr(unsafe.Pointer(t)), pos)
	if d <= 0 {
		panic("non-positive interval for Ticker.Reset")
	}
	s := tickerOf(e, t)
	if s == nil {
		t.Reset(d)
		return
	}
	stopTimer(e, s)
	s.vt.period = int64(d)
	e.clock.start(&s.vt, d)
}
