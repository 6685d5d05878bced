package engine

import (
	"sync"
	"unsafe"
)

// mutexState is the shadow of a sync.Mutex.
type mutexState struct {
	locked  bool
	owner   GID // informative: Go mutexes are not owned
	waiters waitq
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
	m.locked = true
	m.owner = g.id
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
	m.locked = true
	m.owner = g.id
	e.raceAcquire(g, m.unlocked)
	e.notify(&m.waiters)
	return true
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
