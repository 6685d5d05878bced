package engine

import (
	"sync"
	"unsafe"
)

// condState is the shadow of a sync.Cond's notify list, as in the Go runtime: each Wait takes
// a ticket (wait is the next ticket to hand out) and sleeps until notify, the next ticket to
// be notified, has passed its ticket. Signal advances notify by one, waking the oldest waiter;
// Broadcast sets notify to wait, waking all. A Signal or Broadcast only wakes the waits that
// took their ticket before it.
type condState struct {
	wait    uint32
	notify  uint32
	waiters waitq
}

// condTicket is the blocker of a Wait holding a ticket.
type condTicket struct {
	c *condState
	t uint32
}

func (w *condTicket) ready(*goroutine) bool { return int32(w.t-w.c.notify) < 0 }

func condOf(e *Exec, c *sync.Cond) *condState {
	return lookup(e, uintptr(unsafe.Pointer(c)), shadowCond, func() *condState { return &condState{} })
}

// CondWait is c.Wait(): take a ticket (a step), unlock c.L (LockerUnlock), sleep until a
// Signal or Broadcast made after the ticket was taken (the wake-up is a step), and lock c.L
// again (LockerLock, a blocking step). When a Signal came between the ticket and the unlock,
// there is no sleep and no wake-up step, as in the runtime.
func CondWait(c *sync.Cond, pos Pos) {
	e, g := current(pos)
	if g == nil {
		c.Wait()
		return
	}
	obj := uintptr(unsafe.Pointer(c))
	e.point(g, OpCondWait, obj, pos)
	nilCheck(unsafe.Pointer(c))
	s := condOf(e, c)
	w := &condTicket{c: s, t: s.wait}
	s.wait++
	LockerUnlock(c.L, pos)
	if !w.ready(g) { // not notified between the ticket and the unlock: sleep
		e.pointWait(g, OpCondWait, obj, pos, w, &s.waiters)
	}
	LockerLock(c.L, pos)
}

// CondSignal is c.Signal(): it wakes the longest-waiting goroutine, if any.
func CondSignal(c *sync.Cond, pos Pos) {
	e, g := current(pos)
	if g == nil {
		c.Signal()
		return
	}
	e.point(g, OpCondSignal, uintptr(unsafe.Pointer(c)), pos)
	nilCheck(unsafe.Pointer(c))
	s := condOf(e, c)
	if s.wait == s.notify {
		return
	}
	s.notify++
	e.notify(&s.waiters)
}

// CondBroadcast is c.Broadcast(): it wakes every waiting goroutine.
func CondBroadcast(c *sync.Cond, pos Pos) {
	e, g := current(pos)
	if g == nil {
		c.Broadcast()
		return
	}
	e.point(g, OpCondBroadcast, uintptr(unsafe.Pointer(c)), pos)
	nilCheck(unsafe.Pointer(c))
	s := condOf(e, c)
	if s.wait == s.notify {
		return
	}
	s.notify = s.wait
	e.notify(&s.waiters)
}
