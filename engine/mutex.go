package engine

import (
	"sync"
	"unsafe"
)

// mutexState is the shadow of a sync.Mutex.
type mutexState struct {
	locked bool
	// owner is the goroutine that locked it. Go mutexes are not owned: another goroutine may
	// unlock it (handedOff).
	owner   GID
	waiters waitq
	// scanned is how far handedOff has looked through the trace for a step of owner that
	// could hand the mutex on (from the step after the Lock); handed, whether it found one.
	scanned int
	handed  bool
	// unlocked is the race detector's clock of the Unlocks: each happens before the next
	// Lock returns.
	unlocked vclock
}

func (m *mutexState) ready(*goroutine) bool { return !m.locked }

func mutexOf(e *Exec, mu *sync.Mutex) *mutexState {
	return lookup(e, uintptr(unsafe.Pointer(mu)), shadowMutex, func() *mutexState {
		return &mutexState{owner: NoGoroutine, waiters: waitq{uniform: true}}
	})
}

// Lock is mu.Lock().
func Lock(mu *sync.Mutex, pos Pos) {
	e, g := current(pos)
	if g == nil {
		mu.Lock()
		return
	}
	m := mutexOf(e, mu)
	e.pointWait(g, OpLock, uintptr(unsafe.Pointer(mu)), pos, m, &m.waiters)
	m.acquire(e, g)
}

// acquire is the rest of Lock once g may lock m, apart from Lock so that Lock's frame, under
// the strategy's choice at its scheduling point, stays small: a goroutine's first scheduling
// point is often a Lock, decided on the stack the goroutine started with
// (TestSchedulingPointsFitTheInitialStack).
//
//go:noinline
func (m *mutexState) acquire(e *Exec, g *goroutine) {
	m.lock(e, g)
	e.raceAcquire(g, m.unlocked)
	e.notify(&m.waiters)
}

// TryLock is mu.TryLock(). It never blocks.
func TryLock(mu *sync.Mutex, pos Pos) bool {
	e, g := current(pos)
	if g == nil {
		return mu.TryLock()
	}
	m := mutexOf(e, mu)
	e.point(g, OpTryLock, uintptr(unsafe.Pointer(mu)), pos)
	if m.locked {
		e.lookedAt = e.steps // the step changed nothing (clock.go)
		return false
	}
	m.lock(e, g)
	e.raceAcquire(g, m.unlocked)
	e.notify(&m.waiters)
	return true
}

// lock records that g locked m, in the step just traced.
func (m *mutexState) lock(e *Exec, g *goroutine) {
	m.locked = true
	m.owner = g.id
	m.scanned = len(e.trace)
	m.handed = false
}

// handedOff reports whether the goroutine that locked m may have handed it on to another to
// unlock, as Go allows (a metrics library's summary locks in the flushing goroutine and
// unlocks in the one that sums the batch): since its Lock, it made a step that another
// goroutine can learn from — a send or receive, an unlock, a go statement, an atomic or
// plain write, anything that releases (releases). Another goroutine's Unlock that is not
// ordered after the Lock by such a step would race with it (Go throws "unlock of unlocked
// mutex" when it comes first), so until the locker makes one, it alone can unlock m; after, a
// lock cycle through m is no evidence of a deadlock. The trace is looked through once per
// Lock, from where the last call stopped.
func (e *Exec) handedOff(m *mutexState) bool {
	for ; !m.handed && m.scanned < len(e.trace); m.scanned++ {
		if s := e.trace[m.scanned]; s.g == m.owner && !s.isChoice() && releases(s.op()) {
			m.handed = true
		}
	}
	return m.handed
}

// releases reports whether an operation can pass what its goroutine did before it on to
// another goroutine (a release in the memory model's sense, or a plain write another may read
// racily).
func releases(k OpKind) bool {
	switch k {
	case OpLock, OpTryLock, OpRLock, OpTryRLock, OpWaitGroupWait, OpSleep, OpPoolGet:
		return false
	}
	return k.IsWrite()
}

// Unlock is mu.Unlock(). Unlocking an unlocked mutex is a fatal error in Go; here it is a
// panic with the runtime's message.
func Unlock(mu *sync.Mutex, pos Pos) {
	e, g := current(pos)
	if g == nil {
		mu.Unlock()
		return
	}
	m := mutexOf(e, mu)
	e.point(g, OpUnlock, uintptr(unsafe.Pointer(mu)), pos)
	if !m.locked {
		throw("sync: unlock of unlocked mutex")
	}
	m.locked = false
	m.owner = NoGoroutine
	e.raceRelease(g, &m.unlocked)
	e.notify(&m.waiters)
}
