package engine

import (
	"sync"
	"unsafe"
)

// rwmutexMaxReaders is the bias a writer subtracts from the reader count to announce itself,
// as in package sync.
const rwmutexMaxReaders = 1 << 30

// rwState is the shadow of a sync.RWMutex. It follows package sync's algorithm step by step,
// so that every behavior of a real RWMutex, and only those, can be explored:
//
//   - the writer mutex w (wLocked) excludes writers from each other;
//   - readerCount counts the readers, holding or waiting; a writer announces itself by
//     subtracting rwmutexMaxReaders, which makes new readers block (a waiting writer blocks
//     new readers, so a recursive RLock can deadlock);
//   - readerWait counts the readers the announced writer still waits for;
//   - readerSem and writerSem are counting semaphores: a blocked reader proceeds when
//     readerSem > 0, the announced writer when writerSem > 0, each taking one token.
//
// Lock is thus two steps when readers are active: acquire w and announce, then wait for
// the readers to leave.
type rwState struct {
	wLocked     bool
	readerCount int32
	readerWait  int32
	readerSem   int32
	writerSem   int32
	waiters     waitq
	// The race detector's clocks: of the Unlocks (acquired by every Lock and RLock) and of
	// the RUnlocks (acquired by every Lock).
	unlocked, runlocked vclock
}

// The blockers of the RWMutex's three kinds of waits.
type (
	rwWriterMutex rwState // Lock, first phase: the writer mutex is free
	rwWriterWait  rwState // Lock, second phase: the active readers have left
	rwReaderWait  rwState // RLock behind a writer: the writer has unlocked
)

func (s *rwWriterMutex) ready(*goroutine) bool { return !s.wLocked }
func (s *rwWriterWait) ready(*goroutine) bool  { return s.writerSem > 0 }
func (s *rwReaderWait) ready(*goroutine) bool  { return s.readerSem > 0 }

func rwOf(e *Exec, rw *sync.RWMutex) *rwState {
	return lookup(e, uintptr(unsafe.Pointer(rw)), shadowRWMutex, func() *rwState { return &rwState{} })
}

// nilCheck faults like the real operation on a nil object would.
func nilCheck(p unsafe.Pointer) {
	_ = *(*byte)(p)
}

// RLock is rw.RLock(). It is one step, and a second one (the wake-up) when a writer holds or
// waits for the lock.
func RLock(rw *sync.RWMutex, pos Pos) {
	e, g := current(pos)
	if g == nil {
		rw.RLock()
		return
	}
	obj := uintptr(unsafe.Pointer(rw))
	e.point(g, OpRLock, obj, pos)
	nilCheck(unsafe.Pointer(rw))
	s := rwOf(e, rw)
	s.readerCount++
	if s.readerCount >= 0 {
		e.raceAcquire(g, s.unlocked)
		return
	}
	e.pointWait(g, OpRLock, obj, pos, (*rwReaderWait)(s), &s.waiters)
	s.readerSem--
	e.notify(&s.waiters)
	e.raceAcquire(g, s.unlocked)
}

// RWTryRLock is rw.TryRLock(). It never blocks.
func RWTryRLock(rw *sync.RWMutex, pos Pos) bool {
	e, g := current(pos)
	if g == nil {
		return rw.TryRLock()
	}
	e.point(g, OpTryRLock, uintptr(unsafe.Pointer(rw)), pos)
	nilCheck(unsafe.Pointer(rw))
	s := rwOf(e, rw)
	if s.readerCount < 0 {
		return false
	}
	s.readerCount++
	e.raceAcquire(g, s.unlocked)
	return true
}

// RUnlock is rw.RUnlock(). Unlocking an RWMutex that is not read-locked is a fatal error in
// Go; here it is a panic with the runtime's message.
func RUnlock(rw *sync.RWMutex, pos Pos) {
	e, g := current(pos)
	if g == nil {
		rw.RUnlock()
		return
	}
	e.point(g, OpRUnlock, uintptr(unsafe.Pointer(rw)), pos)
	nilCheck(unsafe.Pointer(rw))
	s := rwOf(e, rw)
	s.readerCount--
	e.raceRelease(g, &s.runlocked)
	if r := s.readerCount; r < 0 {
		if r+1 == 0 || r+1 == -rwmutexMaxReaders {
			throw("sync: RUnlock of unlocked RWMutex")
		}
		// A writer is announced: this reader is one it waits for.
		s.readerWait--
		if s.readerWait == 0 {
			s.writerSem++
			e.notify(&s.waiters)
		}
	}
}

// RWLock is rw.Lock(). It is one step (acquire the writer mutex and announce the writer), and
// a second one (the wake-up) when readers hold the lock: they are waited for while new readers
// block.
func RWLock(rw *sync.RWMutex, pos Pos) {
	e, g := current(pos)
	if g == nil {
		rw.Lock()
		return
	}
	obj := uintptr(unsafe.Pointer(rw))
	s := rwOf(e, rw)
	e.pointWait(g, OpLock, obj, pos, (*rwWriterMutex)(s), &s.waiters)
	nilCheck(unsafe.Pointer(rw))
	s.wLocked = true
	r := s.readerCount
	s.readerCount -= rwmutexMaxReaders
	e.notify(&s.waiters)
	defer s.raceLocked(e, g)
	if r == 0 {
		return
	}
	s.readerWait += r
	if s.readerWait == 0 {
		return
	}
	e.pointWait(g, OpLock, obj, pos, (*rwWriterWait)(s), &s.waiters)
	s.writerSem--
	e.notify(&s.waiters)
}

// raceLocked is the race detector's edge of a Lock: every Unlock and RUnlock before it
// happens before it returns.
func (s *rwState) raceLocked(e *Exec, g *goroutine) {
	e.raceAcquire(g, s.unlocked)
	e.raceAcquire(g, s.runlocked)
}

// RWTryLock is rw.TryLock(). It never blocks.
func RWTryLock(rw *sync.RWMutex, pos Pos) bool {
	e, g := current(pos)
	if g == nil {
		return rw.TryLock()
	}
	e.point(g, OpTryLock, uintptr(unsafe.Pointer(rw)), pos)
	nilCheck(unsafe.Pointer(rw))
	s := rwOf(e, rw)
	if s.wLocked || s.readerCount != 0 {
		return false
	}
	s.wLocked = true
	s.readerCount = -rwmutexMaxReaders
	e.notify(&s.waiters)
	s.raceLocked(e, g)
	return true
}

// RWUnlock is rw.Unlock(). Unlocking an RWMutex that is not write-locked is a fatal error in
// Go; here it is a panic with the runtime's message. The readers that blocked behind the
// writer are released at once: they hold the lock before any other writer can take it.
func RWUnlock(rw *sync.RWMutex, pos Pos) {
	e, g := current(pos)
	if g == nil {
		rw.Unlock()
		return
	}
	e.point(g, OpUnlock, uintptr(unsafe.Pointer(rw)), pos)
	nilCheck(unsafe.Pointer(rw))
	s := rwOf(e, rw)
	s.readerCount += rwmutexMaxReaders
	r := s.readerCount
	if r >= rwmutexMaxReaders {
		throw("sync: Unlock of unlocked RWMutex")
	}
	s.readerSem += r
	if !s.wLocked {
		throw("sync: unlock of unlocked mutex")
	}
	s.wLocked = false
	e.raceRelease(g, &s.unlocked)
	e.notify(&s.waiters)
}

// rlocker is the sync.Locker returned by RLocker: its Lock and Unlock are RLock and RUnlock
// of the RWMutex. Like the one of package sync, it is the RWMutex's pointer under another
// type, so RLocker(rw, p) == RLocker(rw, q).
type rlocker sync.RWMutex

// RLocker is rw.RLocker(): a sync.Locker whose Lock and Unlock read-lock and read-unlock rw.
// Instrumented calls of its methods go through LockerLock and LockerUnlock, with their own
// positions; a direct call (from uninstrumented code) is still a scheduling point, at its
// caller's file and line.
func RLocker(rw *sync.RWMutex, pos Pos) sync.Locker {
	return (*rlocker)(rw)
}

// Lock read-locks the RWMutex.
func (r *rlocker) Lock() { RLock((*sync.RWMutex)(r), callerPos(2)) }

// Unlock read-unlocks the RWMutex.
func (r *rlocker) Unlock() { RUnlock((*sync.RWMutex)(r), callerPos(2)) }
