package engine

import (
	"reflect"
	"unsafe"
)

// Case is one case of a Select, made by SendCase or RecvCase. A case belongs to one Select
// call: the instrumenter makes fresh cases for each execution of a select statement.
type Case interface {
	base() *caseBase
	// tryReal attempts the case on the real channel without blocking and reports whether it
	// was committed. A send on a closed channel counts as committed, with closedSend set:
	// the panic is raised when the goroutine's step runs.
	tryReal() bool
	// sendClosed panics with the runtime's error for a send on a closed channel.
	sendClosed()
	reflectCase() reflect.SelectCase
	setReflect(v reflect.Value, ok bool)
	// foreignShadow makes the waiters' shadow of the case's channel if it is an unbuffered
	// foreign channel, else returns nil.
	foreignShadow() *hchan
}

// caseBase is the untyped part of a case.
type caseBase struct {
	addr       uintptr        // the channel's identity, 0 for a nil channel
	send       bool           // a send case (else a receive)
	elem       unsafe.Pointer // the value sent, or where the value received goes (a *T)
	okp        *bool          // receive: where ok goes
	closedSend bool           // a real send attempt found the channel closed
}

func (b *caseBase) base() *caseBase { return b }

// sendCase is the case "case ch <- v".
type sendCase[T any] struct {
	caseBase
	ch chan<- T
	v  T
}

// SendCase is the select case "case ch <- v". The value is evaluated when the case is made,
// as Go evaluates it on entering the select statement.
func SendCase[T any](ch chan<- T, v T) Case {
	c := &sendCase[T]{ch: ch, v: v}
	c.init()
	return c
}

func (c *sendCase[T]) init() {
	c.addr = chanAddr(unsafe.Pointer(&c.ch))
	c.send = true
	c.elem = unsafe.Pointer(&c.v)
}

func (c *sendCase[T]) tryReal() (committed bool) {
	defer func() {
		if recover() != nil { // send on closed channel
			c.closedSend = true
			committed = true
		}
	}()
	select {
	case c.ch <- c.v:
		return true
	default:
		return false
	}
}

func (c *sendCase[T]) sendClosed() {
	select {
	case c.ch <- c.v: // panics: the channel is closed
	default:
	}
	panic(chanError("send on closed channel"))
}

func (c *sendCase[T]) reflectCase() reflect.SelectCase {
	return reflect.SelectCase{Dir: reflect.SelectSend, Chan: reflect.ValueOf(c.ch), Send: reflect.ValueOf(&c.v).Elem()}
}

func (c *sendCase[T]) setReflect(reflect.Value, bool) {}

func (c *sendCase[T]) foreignShadow() *hchan {
	if cap(c.ch) > 0 {
		return nil
	}
	return &hchan{addr: c.addr, foreign: true, ref: *(*unsafe.Pointer)(unsafe.Pointer(&c.ch)), buf: &chanData[T]{}}
}

// RecvCaseOf is the select case "case v, ok := <-ch". After Select returned its index, Value
// and OK are the value received and whether it was sent (false: the channel is closed).
type RecvCaseOf[T any] struct {
	caseBase
	ch <-chan T
	v  T
	ok bool
}

// RecvCase is the select case "case v, ok := <-ch".
func RecvCase[T any](ch <-chan T) *RecvCaseOf[T] {
	c := &RecvCaseOf[T]{ch: ch}
	c.init()
	return c
}

func (c *RecvCaseOf[T]) init() {
	c.addr = chanAddr(unsafe.Pointer(&c.ch))
	c.elem = unsafe.Pointer(&c.v)
	c.okp = &c.ok
}

// Value is the value received, once Select took this case.
func (c *RecvCaseOf[T]) Value() T { return c.v }

// OK reports whether the value received was sent rather than the zero value of a closed
// channel, once Select took this case.
func (c *RecvCaseOf[T]) OK() bool { return c.ok }

func (c *RecvCaseOf[T]) tryReal() bool {
	select {
	case v, ok := <-c.ch:
		c.v, c.ok = v, ok
		return true
	default:
		return false
	}
}

func (c *RecvCaseOf[T]) sendClosed() { panic("engine: internal error: sendClosed on a receive case") }

func (c *RecvCaseOf[T]) reflectCase() reflect.SelectCase {
	return reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(c.ch)}
}

func (c *RecvCaseOf[T]) foreignShadow() *hchan {
	if cap(c.ch) > 0 {
		return nil
	}
	return &hchan{addr: c.addr, foreign: true, ref: *(*unsafe.Pointer)(unsafe.Pointer(&c.ch)), buf: &chanData[T]{}}
}

func (c *RecvCaseOf[T]) setReflect(v reflect.Value, ok bool) {
	reflect.ValueOf(&c.v).Elem().Set(v)
	c.ok = ok
}

// chanError is a runtime error about channels, should the runtime not raise its own.
type chanError string

func (e chanError) Error() string { return string(e) }

// RuntimeError marks chanError as a runtime.Error.
func (chanError) RuntimeError() {}

// chanOp is a goroutine's pending channel operation: a send, a receive or a select, with one
// sudog per case. It is the blocker of the goroutine while it waits.
type chanOp struct {
	g       *goroutine
	sgs     []sudog
	done    bool // matched by a partner, or a foreign case committed
	taken   int  // the case taken, when done
	foreign bool // some case is on a foreign channel
	// nonblocking: a select with a default case.
	nonblocking bool
	one         [1]Case
	oneSg       [1]sudog
}

// ready reports whether the operation can execute: it was matched, or one of its cases is
// ready. A foreign case is attempted for real when no registered case is ready, and commits
// the operation if it succeeds.
func (o *chanOp) ready(*goroutine) bool {
	if o.done {
		return true
	}
	for i := range o.sgs {
		s := &o.sgs[i]
		if s.c != nil && s.c.ready(s) {
			return true
		}
	}
	if o.foreign {
		for i := range o.sgs {
			s := &o.sgs[i]
			if s.c == nil && s.b.addr != 0 && o.tryForeign(s) {
				o.done = true
				o.taken = i
				return true
			}
		}
	}
	return false
}

// tryForeign attempts the case s on a foreign channel: for real, without blocking, and on an
// unbuffered channel also with a controlled goroutine waiting on it. It reports whether the
// case was committed.
func (o *chanOp) tryForeign(s *sudog) bool {
	if s.cs.tryReal() {
		return true
	}
	fc := s.fc
	if fc == nil {
		return false
	}
	if s.b.send {
		r := firstWaiter(fc.recvq, o)
		if r == nil {
			return false
		}
		fc.buf.move(r.b.elem, s.b.elem)
		*r.b.okp = true
		o.g.e.match(r)
		return true
	}
	w := firstWaiter(fc.sendq, o)
	if w == nil {
		return false
	}
	fc.buf.move(s.b.elem, w.b.elem)
	*s.b.okp = true
	o.g.e.match(w)
	return true
}

// chanNever is the blocker of an operation that can never proceed: on a nil channel, or a
// select with no case (select {}) or only nil channels.
type chanNever struct{}

func (chanNever) ready(*goroutine) bool { return false }

// Select is a select statement with the given cases (and a default case when hasDefault). It
// returns the index of the case taken, or -1 for the default case. It is one scheduling point:
// without a default, it blocks until a case can proceed; when several can, which one is
// taken is a data choice of the strategy, recorded in the schedule. select {} blocks forever.
//
// The instrumenter rewrites
//
//	select {
//	case x, ok := <-a: ...
//	case b <- v: ...
//	}
//
// into
//
//	c0, c1 := engine.RecvCase(a), engine.SendCase(b, v)
//	switch engine.Select(pos, false, c0, c1) {
//	case 0:
//		x, ok := c0.Value(), c0.OK()
//		...
//	case 1:
//		...
//	}
func Select(pos Pos, hasDefault bool, cases ...Case) int {
	e, g := current(pos)
	if g == nil {
		return selectReal(hasDefault, cases)
	}
	o := &chanOp{}
	return e.chanDo(g, o, cases, OpSelect, 0, pos, !hasDefault)
}

// selectReal performs the select for real, outside the engine's control.
func selectReal(hasDefault bool, cases []Case) int {
	rc := make([]reflect.SelectCase, len(cases), len(cases)+1)
	for i, c := range cases {
		rc[i] = c.reflectCase()
	}
	if hasDefault {
		rc = append(rc, reflect.SelectCase{Dir: reflect.SelectDefault})
	}
	i, v, ok := reflect.Select(rc)
	if i == len(cases) {
		return -1
	}
	if v.IsValid() {
		cases[i].setReflect(v, ok)
	}
	return i
}

// chanDo runs the channel operation o of g with the given cases at its scheduling point: a
// send or receive (one case) or a select. block is false for a select with a default, which
// never waits. It returns the case taken, -1 for the default.
//
// chanDo's own frame is kept small, the making of the cases' sudogs and the joining of the
// queues out of line: the strategy's Pick runs under it, on the goroutine's stack (a
// deferred receive of a worker pool's goroutine reached Pick 1,100 bytes deep, past what the
// stack a goroutine starts with holds).
func (e *Exec) chanDo(g *goroutine, o *chanOp, cases []Case, kind OpKind, obj uintptr, pos Pos, block bool) int {
	live := e.chanCases(g, o, cases)
	if !block {
		o.nonblocking = true
		e.point(g, kind, obj, pos)
		return e.chanRun(g, o, kind)
	}
	if live == 0 {
		e.pointWait(g, kind, obj, pos, chanNever{})
		panic("engine: internal error: an operation that blocks forever was resumed")
	}
	var qbuf [4]*waitq
	qs := e.chanJoin(o, qbuf[:0])
	if o.foreign {
		g.pending = Op{Kind: kind, Obj: obj, Pos: pos}
		e.pointBlocking(g, o, true, qs)
	} else {
		e.pointWait(g, kind, obj, pos, o, qs...)
	}
	return e.chanRun(g, o, kind)
}

// chanCases makes the sudogs of o, g's operation with the given cases, and returns how many
// are on a non-nil channel.
//
//go:noinline
func (e *Exec) chanCases(g *goroutine, o *chanOp, cases []Case) (live int) {
	o.g = g
	if len(cases) == 1 {
		o.sgs = o.oneSg[:]
	} else {
		o.sgs = make([]sudog, len(cases))
	}
	for i, cs := range cases {
		b := cs.base()
		s := &o.sgs[i]
		*s = sudog{op: o, b: b, cs: cs, idx: i}
		if b.addr == 0 {
			continue // a nil channel: never ready
		}
		live++
		if s.c = chanOf(e, b.addr); s.c == nil {
			o.foreign = true
			s.fc = foreignOf(e, cs)
		}
	}
	return live
}

// chanJoin starts o's wait: its sudogs join their channels' queues, in arrival order, and the
// cases are offered to the partners. It returns qs with the waiter queues of o's channels
// appended.
//
//go:noinline
func (e *Exec) chanJoin(o *chanOp, qs []*waitq) []*waitq {
	for i := range o.sgs {
		s := &o.sgs[i]
		if s.fc != nil {
			if s.b.send {
				s.fc.sendq = append(s.fc.sendq, s)
			} else {
				s.fc.recvq = append(s.fc.recvq, s)
			}
		}
		if s.c == nil {
			continue
		}
		if s.b.send {
			s.c.sendq = append(s.c.sendq, s)
		} else {
			s.c.recvq = append(s.c.recvq, s)
		}
		qs = append(qs, &s.c.waiters)
	}
	e.notifyOp(o)
	return qs
}

// chanRun executes o, whose goroutine g has been picked: its step. Unless a partner already
// completed o, it takes one of the ready cases, chosen by the strategy when there are
// several. Then g leaves the queues.
func (e *Exec) chanRun(g *goroutine, o *chanOp, kind OpKind) int {
	k, closedSend := -1, false
	if o.done {
		k = o.taken
		closedSend = o.sgs[k].b.closedSend
	} else {
		k, closedSend = e.chanPick(g, o)
		if k < 0 {
			e.lookedAt = e.steps // the default: the step changed nothing (clock.go)
		}
	}
	// Leave the queues; the partners that counted on g's other cases are re-evaluated.
	o.done = true
	for i := range o.sgs {
		s := &o.sgs[i]
		c := s.c
		if c == nil {
			if c = s.fc; c == nil {
				continue
			}
		}
		if s.b.send {
			c.sendq = removeSudog(c.sendq, s)
		} else {
			c.recvq = removeSudog(c.recvq, s)
		}
	}
	e.notifyOp(o)
	if k >= 0 && o.sgs[k].c == nil {
		e.raceAcquireAll(g) // a channel the engine does not control: its partner is unknown
	}
	if kind == OpSelect && k >= 0 {
		e.setStepObject(o.sgs[k].b.addr)
	}
	if closedSend {
		o.sgs[k].cs.sendClosed()
	}
	return k
}

// chanPick chooses among the cases of o that can proceed and executes the one chosen. A
// foreign case is an alternative too: if its real attempt fails, it is dropped and the
// choice is made again among the others. It returns -1 when no case can proceed, and whether
// the case taken is a send on a closed channel (which must panic).
func (e *Exec) chanPick(g *goroutine, o *chanOp) (int, bool) {
	var abuf [8]int
	alts := abuf[:0]
	for i := range o.sgs {
		s := &o.sgs[i]
		if s.c != nil {
			if s.c.ready(s) {
				alts = append(alts, i)
			}
		} else if s.b.addr != 0 {
			alts = append(alts, i)
		}
	}
	if o.nonblocking && len(alts) > 0 {
		// A rendezvous case is ready only because a partner is pending at its operation,
		// and in Go that partner may not have started it yet: then the select takes its
		// default. When every ready case is a rendezvous, the default is an alternative too.
		soft := true
		for _, i := range alts {
			if c := o.sgs[i].c; c == nil || c.cap > 0 || c.closed || c.parkedPartner(&o.sgs[i]) {
				soft = false
				break
			}
		}
		if soft {
			alts = append(alts, -1)
		}
	}
	for len(alts) > 0 {
		j := e.choose(g, len(alts))
		if alts[j] < 0 {
			return -1, false
		}
		s := &o.sgs[alts[j]]
		if s.c != nil {
			if s.b.send && s.c.closed {
				return s.idx, true
			}
			e.chanExec(s)
			return s.idx, false
		}
		if o.tryForeign(s) {
			return s.idx, s.b.closedSend
		}
		alts = append(alts[:j], alts[j+1:]...)
	}
	return -1, false
}

func removeSudog(q []*sudog, s *sudog) []*sudog {
	for i, x := range q {
		if x == s {
			copy(q[i:], q[i+1:])
			q[len(q)-1] = nil
			return q[:len(q)-1]
		}
	}
	return q
}
