package engine

import (
	"sort"
	"unsafe"
)

// Introspection for debuggers. The accessors here read the execution's state at a decision
// without changing it; like the Decision itself they are only valid during Pick, on the
// goroutine that calls Pick.

// GoroutineView is a debugger's view of one goroutine at a decision.
type GoroutineView struct {
	ID      GID
	Parent  GID // NoGoroutine for the test body
	Created Pos // where the go statement is (empty for the test body)
	Pending Op  // the operation it executes when picked
	// Status is "enabled", "blocked" or "done".
	Status string
	// Handle is the address of the engine's record of the goroutine. It is the second
	// argument of the engine's frames that a parked or yielding goroutine has on its stack
	// ((*Exec).wait, (*Exec).yield, ...), so that a traceback (runtime.Stack) can be matched
	// to engine goroutines.
	Handle uintptr
	// Holds lists the mutexes the goroutine holds.
	Holds []HeldLock
	// Waits lists the channels its pending operation waits on.
	Waits []ChanView
}

// HeldLock is a lock held by a goroutine.
type HeldLock struct {
	Kind string // "mutex"
	Addr uintptr
}

// ChanView is the state of a channel the engine controls.
type ChanView struct {
	Addr   uintptr
	Cap    int
	Closed bool
	// Send is true when the goroutine the view was made for waits to send on the channel
	// (else to receive).
	Send bool
	// Len is the number of buffered values, and Values the first of them (at most 16).
	Len    int
	Values []any
	// Senders and Receivers are the goroutines waiting to send and to receive.
	Senders, Receivers []GID
}

// Current returns the goroutine on whose stack Pick runs: the one that reached the scheduling
// point (or finished) and asked for a decision.
func (d *Decision) Current() GID {
	if d.e == nil || d.e.cur == nil {
		return NoGoroutine
	}
	return d.e.cur.id
}

// Goroutine describes goroutine g of the execution (g < d.Goroutines).
func (d *Decision) Goroutine(g GID) GoroutineView {
	e := d.e
	if e == nil || g < 0 || int(g) >= len(e.gs) {
		return GoroutineView{ID: g, Parent: NoGoroutine}
	}
	x := e.gs[g]
	v := GoroutineView{ID: g, Parent: x.parent, Created: x.created, Pending: x.pending, Handle: uintptr(unsafe.Pointer(x)), Status: x.status()}
	if x.done {
		return v
	}
	for key, s := range e.shadow {
		switch key.kind {
		case shadowMutex:
			if m := s.(*mutexState); m.locked && m.owner == g {
				v.Holds = append(v.Holds, HeldLock{Kind: "mutex", Addr: key.addr})
			}
		case shadowChan:
			c := s.(*hchan)
			send, waits := false, false
			for _, q := range [][]*sudog{c.sendq, c.recvq} {
				for _, sg := range q {
					if sg.op != nil && sg.op.g == x && !sg.op.done {
						waits, send = true, sg.b != nil && sg.b.send
					}
				}
			}
			if waits {
				v.Waits = append(v.Waits, c.view(send))
			}
		}
	}
	sort.Slice(v.Holds, func(i, j int) bool { return v.Holds[i].Addr < v.Holds[j].Addr })
	sort.Slice(v.Waits, func(i, j int) bool { return v.Waits[i].Addr < v.Waits[j].Addr })
	return v
}

// view describes c.
func (c *hchan) view(send bool) ChanView {
	v := ChanView{Addr: c.addr, Cap: c.cap, Closed: c.closed, Send: send}
	if c.buf != nil {
		v.Len = c.buf.len()
		if b, ok := c.buf.(interface{ values(int) []any }); ok {
			v.Values = b.values(16)
		}
	}
	for _, q := range []struct {
		sgs []*sudog
		out *[]GID
	}{{c.sendq, &v.Senders}, {c.recvq, &v.Receivers}} {
		for _, sg := range q.sgs {
			if sg.op != nil && sg.op.g != nil && !sg.op.done {
				*q.out = append(*q.out, sg.op.g.id)
			}
		}
	}
	return v
}

// values returns the first max buffered values.
func (d *chanData[T]) values(max int) []any {
	var out []any
	for _, x := range d.q[d.head:] {
		if len(out) == max {
			break
		}
		out = append(out, x)
	}
	return out
}
