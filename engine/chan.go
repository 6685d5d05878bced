package engine

import (
	"unsafe"
)

// Channels.
//
// A channel made by instrumented code during an execution (MakeChan) is registered: its
// state lives in a shadow, hchan, and every send, receive, close and select on it is decided
// by the engine, which knows every goroutine waiting on it. The real channel is only used
// for what the shadow cannot do: it is closed when the shadow is closed (so that
// uninstrumented code waiting on it, such as the context package, sees it), and the runtime's
// own panics (send on closed channel, close of closed channel) are raised by performing the
// operation on it. Values never go through the real channel of a registered channel.
//
// The model, for a channel of capacity cap holding count buffered values:
//
//   - A goroutine that reaches a blocking send, receive or select starts waiting: each of its
//     cases joins the channel's send or receive queue, in arrival order, until the goroutine
//     executes its step. A select with a default never waits, so it is never anybody's
//     partner, as in Go.
//   - A send is enabled iff the channel is closed (it panics when it runs), count < cap, or
//     (count == 0) a receiver waits unmatched. A receive is enabled iff count > 0, the channel
//     is closed, or (unbuffered) a sender waits unmatched.
//   - The goroutine that executes its step completes the transfer, exactly as Go's runtime
//     does: a send hands its value to the first waiting receiver, if any, else buffers it; a
//     receive from a full buffer takes the head and moves the first waiting sender's value to
//     the tail; an unbuffered receive takes the value of the first waiting sender. The partner
//     is then matched: its operation (the case taken, for a select) is done, and its step just
//     returns. Waiters are served first come, first served.
//   - Closing wakes every waiter: receivers then get the zero value and ok == false once the
//     buffer is drained, unmatched senders panic "send on closed channel" when they run.
//
// Channels the engine did not see created in this execution (made before it, or by
// uninstrumented code) are foreign: an operation on one is attempted for real without blocking
// whenever the engine re-evaluates it (pointPoll), and the first attempt that succeeds commits
// the operation, whose result is kept until the goroutine's step runs. Two controlled
// goroutines cannot meet on an unbuffered foreign channel for real (neither ever blocks in
// the runtime), so the engine also matches a waiting controlled partner there itself.
//
// Internal entry points for the virtual clock (timers, tickers), which run inside the engine
// rather than at a goroutine's scheduling point: chanMake, chanDeliver, chanDrain,
// chanCloseInternal.

// hchan is the shadow of a registered channel.
type hchan struct {
	addr uintptr
	// foreign: the channel is not registered; the shadow only holds the controlled
	// goroutines waiting on an unbuffered foreign channel (ref keeps the channel alive, so
	// that its address is not reused by a channel of another type).
	foreign bool
	ref     unsafe.Pointer
	cap     int
	closed  bool
	buf     chanBuf
	// sendq and recvq are the cases of the goroutines waiting to send and to receive, in
	// arrival order. Cases of matched operations stay until their goroutine runs; they are
	// skipped.
	sendq, recvq []*sudog
	// waiters are the goroutines whose pending operation involves the channel.
	waiters waitq
	// clocks are the race detector's.
	clocks chanClocks
}

// chanBuf is the typed part of a channel's shadow: its buffer. Values are passed as pointers
// to variables of the channel's element type.
type chanBuf interface {
	len() int
	push(src unsafe.Pointer)
	pop(dst unsafe.Pointer)
	move(dst, src unsafe.Pointer)
	zero(dst unsafe.Pointer)
	drain() int
}

// chanData is the buffer of a channel of T: a queue, q[head:]. The real channel's buffer
// mirrors it (each push is also a send to it, each pop a receive from it), so that what reads
// the channel by reflection — len through reflect, testify's assert.Len — sees what Go would.
type chanData[T any] struct {
	real chan T // keeps the channel, so its address is not reused during the execution
	q    []T
	head int
}

// mirrorPush and mirrorPop keep the real channel's buffer as the queue. They never block:
// the queue never holds more than the channel's capacity.
func (d *chanData[T]) mirrorPush(v T) {
	if cap(d.real) > 0 {
		select {
		case d.real <- v:
		default:
		}
	}
}

func (d *chanData[T]) mirrorPop() {
	if cap(d.real) > 0 {
		select {
		case <-d.real:
		default:
		}
	}
}

func (d *chanData[T]) len() int { return len(d.q) - d.head }

func (d *chanData[T]) push(src unsafe.Pointer) {
	if d.head > 0 && len(d.q) == cap(d.q) {
		n := copy(d.q, d.q[d.head:])
		clear(d.q[n:])
		d.q = d.q[:n]
		d.head = 0
	}
	d.q = append(d.q, *(*T)(src))
	d.mirrorPush(*(*T)(src))
}

func (d *chanData[T]) pop(dst unsafe.Pointer) {
	var zero T
	if dst != nil {
		*(*T)(dst) = d.q[d.head]
	}
	d.q[d.head] = zero
	d.head++
	if d.head == len(d.q) {
		d.q = d.q[:0]
		d.head = 0
	}
	d.mirrorPop()
}

func (d *chanData[T]) move(dst, src unsafe.Pointer) { *(*T)(dst) = *(*T)(src) }

func (d *chanData[T]) zero(dst unsafe.Pointer) {
	var zero T
	*(*T)(dst) = zero
}

func (d *chanData[T]) drain() int {
	n := d.len()
	for range n {
		d.mirrorPop()
	}
	clear(d.q)
	d.q = d.q[:0]
	d.head = 0
	return n
}

// sudog is one case of a waiting goroutine's operation in a channel's queue.
type sudog struct {
	op  *chanOp
	c   *hchan // nil for a nil or foreign channel
	fc  *hchan // the waiters of an unbuffered foreign channel
	b   *caseBase
	cs  Case
	idx int // the case's index in op
}

// chanAddr returns the identity of a channel: its runtime pointer, the same for every
// directional view of it. p points to a variable of a channel type.
func chanAddr(p unsafe.Pointer) uintptr { return *(*uintptr)(p) }

// chanOf returns the shadow of the registered channel at addr, or nil.
func chanOf(e *Exec, addr uintptr) *hchan {
	if addr == 0 {
		return nil
	}
	if v, ok := e.shadow[shadowKey{addr, shadowChan}]; ok {
		if c := v.(*hchan); !c.foreign {
			return c
		}
	}
	return nil
}

// foreignOf returns the waiters' shadow of the unbuffered foreign channel of case cs, or nil
// for a buffered one.
func foreignOf(e *Exec, cs Case) *hchan {
	key := shadowKey{cs.base().addr, shadowChan}
	if v, ok := e.shadow[key]; ok {
		return v.(*hchan)
	}
	c := cs.foreignShadow()
	if c != nil {
		e.shadow[key] = c
	}
	return c
}

// chanMake makes a channel of T with the given buffer size and registers it in e. It is what
// MakeChan does under control, and what the engine uses for the channels it makes itself
// (timers). It does not need the calling goroutine.
func chanMake[T any](e *Exec, size int) chan T {
	ch := make(chan T, size)
	addr := chanAddr(unsafe.Pointer(&ch))
	e.shadow[shadowKey{addr, shadowChan}] = &hchan{addr: addr, cap: size, buf: &chanData[T]{real: ch}}
	return ch
}

// firstWaiter returns the first case in q whose operation is still waiting, skipping self's.
func firstWaiter(q []*sudog, self *chanOp) *sudog {
	for _, s := range q {
		if !s.op.done && s.op != self {
			return s
		}
	}
	return nil
}

// canSend reports whether a send on c by self can execute now (possibly to panic).
func (c *hchan) canSend(self *chanOp) bool {
	n := c.buf.len()
	return c.closed || n < c.cap || (n == 0 && firstWaiter(c.recvq, self) != nil)
}

// canRecv reports whether a receive from c by self can execute now.
func (c *hchan) canRecv(self *chanOp) bool {
	return c.buf.len() > 0 || c.closed || (c.cap == 0 && firstWaiter(c.sendq, self) != nil)
}

func (c *hchan) ready(s *sudog) bool {
	if s.b.send {
		return c.canSend(s.op)
	}
	return c.canRecv(s.op)
}

// parkedPartner reports whether a goroutine waiting to complete the rendezvous case s is
// durably blocked in its operation (synctest.Wait found it so).
func (c *hchan) parkedPartner(s *sudog) bool {
	q := c.recvq
	if !s.b.send {
		q = c.sendq
	}
	for _, p := range q {
		if g := p.op.g; g != nil && !p.op.done && g.parked() {
			return true
		}
	}
	return false
}

// match completes the waiting case s: its operation is done, the case taken.
func (e *Exec) match(s *sudog) {
	s.op.done = true
	s.op.taken = s.idx
	e.notifyOp(s.op)
	if s.op.g != nil {
		e.setEnabled(s.op.g, true) // also when it waits by polling
	}
}

// chanExec executes the case s, which is ready, on its registered channel, during the step of
// the goroutine whose operation it is. The partner it serves, if any, is matched.
func (e *Exec) chanExec(s *sudog) {
	c, b, o := s.c, s.b, s.op
	if b.send {
		if c.closed {
			s.cs.sendClosed() // panics: send on closed channel
		}
		if c.buf.len() == 0 {
			if r := firstWaiter(c.recvq, o); r != nil {
				c.buf.move(r.b.elem, b.elem)
				*r.b.okp = true
				e.raceTransfer(c, o.g, r.op.g, vclock{})
				e.match(r)
				return
			}
		}
		if c.buf.len() < c.cap {
			c.buf.push(b.elem)
			e.raceSend(c, o.g, vclock{})
			return
		}
		panic("engine: internal error: send executed on a channel that is not ready")
	}
	if n := c.buf.len(); n > 0 {
		c.buf.pop(b.elem)
		*b.okp = true
		e.raceRecv(c, o.g)
		if n == c.cap {
			if w := firstWaiter(c.sendq, o); w != nil {
				c.buf.push(w.b.elem)
				e.raceSend(c, w.op.g, vclock{})
				e.match(w)
			}
		}
		return
	}
	if c.closed {
		c.buf.zero(b.elem)
		*b.okp = false
		e.raceRecvClosed(c, o.g)
		return
	}
	if w := firstWaiter(c.sendq, o); w != nil {
		c.buf.move(b.elem, w.b.elem)
		*b.okp = true
		e.raceTransfer(c, w.op.g, o.g, vclock{})
		e.match(w)
		return
	}
	panic("engine: internal error: receive executed on a channel that is not ready")
}

// notifyOp re-evaluates the goroutines waiting on every channel of o: o's state changed
// (it was matched, or its goroutine left the queues), so the partners it offered are gone.
func (e *Exec) notifyOp(o *chanOp) {
	for i := range o.sgs {
		if c := o.sgs[i].c; c != nil {
			e.notify(&c.waiters)
		}
	}
}

// MakeChan is make(chan T, size) in instrumented code. Under control, the channel is
// registered in the execution, so that the engine decides its operations. Making a channel
// is not a scheduling point.
func MakeChan[T any](size int, pos Pos) chan T {
	e, g := current(pos)
	if g == nil {
		return make(chan T, size)
	}
	return chanMake[T](e, size)
}

// Send is ch <- v.
func Send[T any](ch chan<- T, v T, pos Pos) {
	e, g := current(pos)
	if g == nil {
		ch <- v
		return
	}
	sendSlow(e, g, ch, v, pos)
}

// sendOp and recvOp are a plain send's and receive's operation and case, in one allocation.
type sendOp[T any] struct {
	chanOp
	c sendCase[T]
}

type recvOp[T any] struct {
	chanOp
	c RecvCaseOf[T]
}

func sendSlow[T any](e *Exec, g *goroutine, ch chan<- T, v T, pos Pos) {
	p := &sendOp[T]{}
	p.c.ch, p.c.v = ch, v
	p.c.init()
	p.one[0] = &p.c
	e.chanDo(g, &p.chanOp, p.one[:], OpSend, p.c.addr, pos, true)
}

// Recv is <-ch.
func Recv[T any](ch <-chan T, pos Pos) T {
	v, _ := Recv2(ch, pos)
	return v
}

// Recv2 is v, ok := <-ch. A loop "for v := range ch" is a loop on Recv2 that ends when ok is
// false.
func Recv2[T any](ch <-chan T, pos Pos) (T, bool) {
	e, g := current(pos)
	if g == nil {
		v, ok := <-ch
		return v, ok
	}
	return recvSlow(e, g, ch, pos)
}

func recvSlow[T any](e *Exec, g *goroutine, ch <-chan T, pos Pos) (T, bool) {
	p := &recvOp[T]{}
	p.c.ch = ch
	p.c.init()
	p.one[0] = &p.c
	e.chanDo(g, &p.chanOp, p.one[:], OpRecv, p.c.addr, pos, true)
	return p.c.v, p.c.ok
}

// Close is close(ch). Closing a nil or closed channel panics with the runtime's error.
func Close[T any](ch chan<- T, pos Pos) {
	e, g := current(pos)
	if g == nil {
		close(ch)
		return
	}
	addr := chanAddr(unsafe.Pointer(&ch))
	e.point(g, OpClose, addr, pos)
	c := chanOf(e, addr)
	close(ch) // the runtime's panic for a nil or closed channel
	if c != nil {
		c.closed = true
		e.raceClose(c, g)
		e.notify(&c.waiters)
	}
}

// Len is len(ch). It is a scheduling point: its result depends on the other goroutines.
func Len[T any](ch <-chan T, pos Pos) int {
	e, g := current(pos)
	if g == nil {
		return len(ch)
	}
	addr := chanAddr(unsafe.Pointer(&ch))
	e.point(g, OpChanLen, addr, pos)
	if c := chanOf(e, addr); c != nil {
		return c.buf.len()
	}
	return len(ch)
}

// Cap is cap(ch). It is not a scheduling point: a channel's capacity never changes.
func Cap[T any](ch <-chan T, pos Pos) int { return cap(ch) }

// chanDeliver sends v on ch from inside the engine, without blocking: the virtual clock
// firing a timer, on whatever goroutine advanced the clock. On a registered channel v is handed
// to the first waiting receiver (which becomes enabled), or else buffered if there is room.
// It reports whether v was delivered; a closed channel, a full buffer, or an unbuffered
// channel nobody waits on drop it. It never panics. An unregistered channel gets a real
// non-blocking send.
func chanDeliver[T any](e *Exec, ch chan T, v T) (ok bool) {
	c := chanOf(e, chanAddr(unsafe.Pointer(&ch)))
	if c == nil {
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		select {
		case ch <- v:
			return true
		default:
			return false
		}
	}
	if c.closed {
		return false
	}
	if c.buf.len() == 0 {
		if r := firstWaiter(c.recvq, nil); r != nil {
			c.buf.move(r.b.elem, unsafe.Pointer(&v))
			*r.b.okp = true
			e.raceTransfer(c, nil, r.op.g, e.raceAll())
			e.match(r)
			return true
		}
	}
	if c.buf.len() < c.cap {
		c.buf.push(unsafe.Pointer(&v))
		e.raceSend(c, nil, e.raceAll())
		e.notify(&c.waiters)
		return true
	}
	return false
}

// chanDrain removes every buffered value of ch from inside the engine (Timer.Stop and
// Timer.Reset: no stale value may be received after they return) and returns how many it
// removed. Goroutines waiting on ch are re-evaluated. An unregistered channel is drained
// with real non-blocking receives.
func chanDrain[T any](e *Exec, ch chan T) int {
	c := chanOf(e, chanAddr(unsafe.Pointer(&ch)))
	if c == nil {
		n := 0
		for {
			select {
			case _, ok := <-ch:
				if !ok {
					return n
				}
				n++
			default:
				return n
			}
		}
	}
	n := c.buf.drain()
	e.raceDrained(c, n)
	if n > 0 {
		// A full buffer may have had senders waiting: they can send now.
		e.notify(&c.waiters)
	}
	return n
}

// chanCloseInternal closes ch from inside the engine (a context being canceled by a timer)
// and reports whether it was open. It never panics. Waiters are woken as by Close.
func chanCloseInternal[T any](e *Exec, ch chan T) (wasOpen bool) {
	c := chanOf(e, chanAddr(unsafe.Pointer(&ch)))
	if c != nil && c.closed {
		return false
	}
	wasOpen = closeQuiet(ch)
	if c != nil {
		c.closed = true
		wasOpen = true
		e.raceClose(c, nil)
		e.notify(&c.waiters)
	}
	return wasOpen
}

// closeQuiet closes ch and reports whether it was open, without panicking.
func closeQuiet[T any](ch chan T) (ok bool) {
	if ch == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	close(ch)
	return true
}
