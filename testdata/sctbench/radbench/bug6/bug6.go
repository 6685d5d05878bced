// Package bug6 is SCTBench benchmark 45, radbench.bug6 (Thomson, Donaldson
// & Betts; RADBench bug 6, Mozilla bug 526805, "NSPR-3": rwlock-test.c
// against NSPR 4.8's PRRWLock).
//
// NSPR's readers-writer lock (prrwlock.c) is a mutex with two condition
// variables, a reader count, a writer count and a count of waiting writers;
// it prefers writers, so a read lock waits while a writer holds the lock or
// is waiting for it. The test creates the lock and two threads: a reader that
// takes the read lock twice (recursively) and then releases it twice, and a
// writer that takes the write lock and releases it; main joins both.
//
// The bug: if the writer arrives between the reader's two read locks, it
// waits for the reader to leave, and the reader's second read lock waits for
// the writer: a deadlock. IPB and IDB found it with one preemption/delay.
//
// Threads: 3 (main, reader, writer). Simplified: NSPR's lock-rank checking
// (PR_RWLOCK_RANK_NONE: disabled) and thread-private data are omitted.
package bug6

import "sync"

// RWLock is NSPR's PRRWLock.
type RWLock struct {
	name           string
	lock           sync.Mutex
	readerCnt      int // reader count, or -1 when write-locked
	writerCnt      int // writers waiting
	readerWaitCnt  int
	writerWaitCnt  int
	readerWaitCond *sync.Cond
	writerWaitCond *sync.Cond
}

// NewRWLock creates a lock.
func NewRWLock(name string) *RWLock {
	l := &RWLock{name: name}
	l.readerWaitCond = sync.NewCond(&l.lock)
	l.writerWaitCond = sync.NewCond(&l.lock)
	return l
}

// RLock takes the read lock; it waits while a writer holds or waits for
// the lock.
func (l *RWLock) RLock() {
	l.lock.Lock()
	for l.readerCnt < 0 || l.writerCnt > 0 {
		l.readerWaitCnt++
		l.readerWaitCond.Wait()
		l.readerWaitCnt--
	}
	l.readerCnt++
	l.lock.Unlock()
}

// WLock takes the write lock.
func (l *RWLock) WLock() {
	l.lock.Lock()
	for l.readerCnt != 0 {
		l.writerCnt++
		l.writerWaitCnt++
		l.writerWaitCond.Wait()
		l.writerWaitCnt--
		l.writerCnt--
	}
	l.readerCnt = -1
	l.lock.Unlock()
}

// Unlock releases a read or the write lock.
func (l *RWLock) Unlock() {
	l.lock.Lock()
	if l.readerCnt > 0 {
		l.readerCnt--
		if l.readerCnt == 0 && l.writerWaitCnt > 0 {
			l.writerWaitCond.Signal()
		}
	} else {
		l.readerCnt = 0
		if l.writerWaitCnt > 0 {
			l.writerWaitCond.Signal()
		} else if l.readerWaitCnt > 0 {
			l.readerWaitCond.Broadcast()
		}
	}
	l.lock.Unlock()
}

// Run is the test's main: a recursive reader and a writer.
func Run() {
	thelock := NewRWLock("the lock")
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // reader
		defer wg.Done()
		thelock.RLock()
		thelock.RLock()
		thelock.Unlock()
		thelock.Unlock()
	}()
	go func() { // writer
		defer wg.Done()
		thelock.WLock()
		thelock.Unlock()
	}()
	wg.Wait()
}
