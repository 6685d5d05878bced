package engine

import (
	"sync"
	"unsafe"
)

// wgState is the shadow of a sync.WaitGroup. Like package sync's, it has a task counter, a
// count of waiters and a semaphore: when the counter drops to zero, every current waiter gets
// a token and the state is cleared at once, so the released waiters return even if a new Add
// comes before they run. A released waiter that finds the state not clear when it wakes
// panics: the WaitGroup was reused before the previous Wait returned.
type wgState struct {
	counter int32
	waiters uint32
	sema    uint32
	q       waitq
	// done is the race detector's clock of the Dones (Adds with a negative delta): each
	// happens before the Wait it releases returns.
	done vclock
}

func (s *wgState) ready(*goroutine) bool { return s.sema > 0 }

func wgOf(e *Exec, wg *sync.WaitGroup) *wgState {
	return lookup(e, uintptr(unsafe.Pointer(wg)), shadowWaitGroup, func() *wgState { return &wgState{} })
}

// WGAdd is wg.Add(delta).
func WGAdd(wg *sync.WaitGroup, delta int, pos Pos) { wgAdd(wg, delta, OpWaitGroupAdd, pos) }

func wgAdd(wg *sync.WaitGroup, delta int, kind OpKind, pos Pos) {
	e, g := current(pos)
	if g == nil {
		wg.Add(delta)
		return
	}
	e.point(g, kind, uintptr(unsafe.Pointer(wg)), pos)
	nilCheck(unsafe.Pointer(wg))
	s := wgOf(e, wg)
	// The counter is the high half of a 64-bit state: delta is truncated to 32 bits.
	s.counter = int32(uint32(s.counter) + uint32(delta))
	if delta < 0 {
		e.raceRelease(g, &s.done)
	}
	v, w := s.counter, s.waiters
	if delta > 0 && v == int32(delta) && e.race != nil {
		// The first Add (from zero) must be synchronized with Wait: as package sync tells
		// Go's race detector, it reads the semaphore that the first waiter writes.
		e.raceAccess(g, wgSema(wg), false, false, pos)
	}
	if v < 0 {
		panic("sync: negative WaitGroup counter")
	}
	if w != 0 && delta > 0 && v == int32(delta) {
		// Unreachable when every operation is a step: kept as package sync has it.
		panic("sync: WaitGroup misuse: Add called concurrently with Wait")
	}
	if v > 0 || w == 0 {
		return
	}
	s.counter, s.waiters = 0, 0
	s.sema += w
	e.notify(&s.q)
}

// wgSema is the location the race detector checks for an Add from zero concurrent with a
// Wait: the WaitGroup's second word, standing for package sync's semaphore field.
func wgSema(wg *sync.WaitGroup) unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(wg), 8)
}

// WGDone is wg.Done(): WGAdd(wg, -1, pos), recorded as its own operation ("wg.done").
func WGDone(wg *sync.WaitGroup, pos Pos) {
	wgAdd(wg, -1, OpWaitGroupDone, pos)
}

// WGWait is wg.Wait(). It is one step when the counter is zero; otherwise the goroutine
// registers as a waiter in that step and blocks until the counter drops to zero, and its
// wake-up is a second step.
func WGWait(wg *sync.WaitGroup, pos Pos) {
	e, g := current(pos)
	if g == nil {
		wg.Wait()
		return
	}
	obj := uintptr(unsafe.Pointer(wg))
	e.point(g, OpWaitGroupWait, obj, pos)
	nilCheck(unsafe.Pointer(wg))
	s := wgOf(e, wg)
	if s.counter == 0 {
		e.raceAcquire(g, s.done)
		return
	}
	if s.waiters == 0 && e.race != nil {
		// The first waiter writes the semaphore the first Add reads (WGAdd).
		e.raceAccess(g, wgSema(wg), true, false, pos)
	}
	s.waiters++
	e.pointWait(g, OpWaitGroupWait, obj, pos, s, &s.q)
	s.sema--
	e.notify(&s.q)
	e.raceAcquire(g, s.done)
	if s.counter != 0 || s.waiters != 0 {
		panic("sync: WaitGroup is reused before previous Wait has returned")
	}
}

// WGGo is wg.Go(f) (Go 1.25): Add(1), then the go statement of a goroutine that runs f and
// then Done. As in Go 1.26, if f panics Done is not called and the panic goes on (it is a
// bug of the new goroutine); if f calls runtime.Goexit, Done is called.
func WGGo(wg *sync.WaitGroup, f func(), pos Pos) {
	WGAdd(wg, 1, pos)
	Go(func() {
		defer func() {
			if x := recover(); x != nil {
				panic(x)
			}
			WGDone(wg, pos)
		}()
		f()
	}, pos)
}
