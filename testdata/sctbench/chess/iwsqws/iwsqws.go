// Package iwsqws is SCTBench benchmark 33, chess.IWSQWS (Thomson, Donaldson
// & Betts; originally the CHESS test InterlockedWorkStealQueueWithState.cpp
// with WorkStealQueueWithState.h, translated by the study to pthreads and
// C++11 atomics). It differs from chess.SWSQ only in the owner's work.
//
// The program is the THE work-stealing queue of chess.WSQ, with its lock a
// spin lock on an atomic exchange (USE_NON_BLOCKING_SYNC) and with every
// function instrumented to record an explicit model of each thread's call
// stack: a global State holds one stack of activation records per thread id,
// and every function pushes a record on entry, updates its program counter
// and local variables as it goes, and pops it on return (CHESS used this to
// hash program states). The owner (thread 0, the test goroutine) pushes the
// 4 items two at a time, popping one after each pair, then pops the rest; two
// stealers (threads 1 and 2) each try to steal
// twice. Every item must be operated on exactly once. The queue itself is
// correct here (its capacity check is the fixed one).
//
// The bug is in the state recorder: State.Push grows the shared vector of
// stacks (resize to tid+1 when size <= tid) without synchronization. If
// stealer 1 sees the vector too short, then stealer 2 grows it to 3 and
// pushes its record, and only then stealer 1 resizes it to 2, stealer 2's
// stack is destroyed and its next Peek finds no stack: the original aborts
// (assert / std::out_of_range); here Peek panics. The study's IDB found it
// with one delay (one buggy schedule of 471); IPB, DFS missed it.
//
// Threads: 3 (owner plus two stealers; the harness passes the thread count
// as the number of stealers). The queue starts with capacity 2 and
// the stack vector reserves 100 slots as in the original, so growing it
// never moves it. Simplified: GetState (the state hashing callback, not
// called by the test) is omitted; records keep their local variables as
// ints.
package iwsqws

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Function identifiers of the activation records.
const (
	fRunTest = iota
	fStealer
	fPush
	fPop
	fSteal
	fSyncPush
	fSyncPop
	fAcquire
	fRelease
)

// activationRecord is one frame of the recorded call stack.
type activationRecord struct {
	fname int
	pc    int
	lvars []int
}

func (ar *activationRecord) update(pc int) { ar.pc = pc }

func (ar *activationRecord) updateVar(pc, id, val int) {
	ar.pc = pc
	for len(ar.lvars) <= id {
		ar.lvars = append(ar.lvars, 0)
	}
	ar.lvars[id] = val
}

// State is the recorded call stacks of all threads, indexed by thread id.
// It is shared and unsynchronized, as in the original.
type State struct {
	stacks [][]activationRecord
}

func newState() *State {
	return &State{stacks: make([][]activationRecord, 0, 100)}
}

// resize sets the number of stacks to n, destroying the stacks beyond n
// when shrinking and creating empty ones when growing.
func (s *State) resize(n int) {
	cur := s.stacks
	for i := n; i < len(cur); i++ {
		cur[i] = nil
	}
	if n <= cap(cur) {
		s.stacks = cur[:n]
		return
	}
	grown := make([][]activationRecord, n)
	copy(grown, cur)
	s.stacks = grown
}

// Push pushes a record for function fname on thread tid's stack.
func (s *State) Push(tid, fname int) {
	if len(s.stacks) <= tid {
		s.resize(tid + 1)
	}
	s.stacks[tid] = append(s.stacks[tid], activationRecord{fname: fname})
}

// Pop pops thread tid's top record.
func (s *State) Pop(tid int) {
	st := s.stacks[tid]
	if len(st) == 0 {
		panic("state: pop of an empty stack")
	}
	s.stacks[tid] = st[:len(st)-1]
}

// Peek returns thread tid's top record.
func (s *State) Peek(tid int) *activationRecord {
	st := s.stacks[tid]
	if len(st) == 0 {
		panic("state: peek at an empty stack")
	}
	return &st[len(st)-1]
}

// Clear drops all stacks.
func (s *State) Clear() { s.stacks = s.stacks[:0] }

const (
	maxSize     = 1024 * 1024
	initialSize = 1024
)

// Queue is the work-stealing queue with its state recorder.
type Queue[T any] struct {
	st    *State
	lock  atomic.Int32 // spin lock: 0 free, 1 held
	head  atomic.Int64
	tail  atomic.Int64
	elems []T
	mask  int64
}

// NewQueue returns an empty queue of the given capacity (a power of two).
func NewQueue[T any](st *State, size int64) *Queue[T] {
	return &Queue[T]{st: st, elems: make([]T, size), mask: size - 1}
}

func (q *Queue[T]) acquire(tid int) {
	q.st.Push(tid, fAcquire)
	retries := 0
	for {
		q.st.Peek(tid).updateVar(0, 0, retries)
		if q.lock.Swap(1) == 0 {
			break
		}
		retries++
		q.st.Peek(tid).updateVar(1, 0, retries)
		runtime.Gosched()
		retries = 0
	}
	q.st.Pop(tid)
}

func (q *Queue[T]) release(tid int) {
	q.st.Push(tid, fRelease)
	q.st.Peek(tid).update(0)
	q.lock.Store(0)
	q.st.Pop(tid)
}

// readV is an atomic read (the original uses a compare-and-swap of 0 by 0).
func readV(v *atomic.Int64) int64 { return v.Load() }

func writeV(v *atomic.Int64, w int64) { v.Swap(w) }

// computeIndex is the position of l relative to the head, for the records.
func (q *Queue[T]) computeIndex(l int64) int {
	h := q.head.Load()
	if l >= h {
		return int(l - h)
	}
	return int(q.mask + 1 - (h - l))
}

// Steal takes an element from the head.
func (q *Queue[T]) Steal(tid int) (result T, found bool) {
	q.st.Push(tid, fSteal)
	q.st.Peek(tid).update(0)
	q.acquire(tid)
	q.st.Peek(tid).update(1)
	h := readV(&q.head)
	q.st.Peek(tid).updateVar(2, 0, q.computeIndex(h))
	writeV(&q.head, h+1)
	q.st.Peek(tid).update(3)
	if h < readV(&q.tail) {
		result = q.elems[h&q.mask]
		found = true
	} else {
		q.st.Peek(tid).update(4)
		writeV(&q.head, h) // restore the head
	}
	q.st.Peek(tid).updateVar(5, 1, b2i(found))
	q.release(tid)
	q.st.Pop(tid)
	return result, found
}

// Pop takes an element from the tail.
func (q *Queue[T]) Pop(tid int) (result T, found bool) {
	q.st.Push(tid, fPop)
	q.st.Peek(tid).update(0)
	t := readV(&q.tail) - 1
	q.st.Peek(tid).updateVar(1, 0, q.computeIndex(t))
	writeV(&q.tail, t)
	q.st.Peek(tid).update(2)
	if readV(&q.head) <= t {
		result, found = q.elems[t&q.mask], true
	} else {
		q.st.Peek(tid).update(3)
		writeV(&q.tail, t+1) // restore the tail
		result, found = q.syncPop(tid)
	}
	q.st.Pop(tid)
	return result, found
}

func (q *Queue[T]) syncPop(tid int) (result T, found bool) {
	q.st.Push(tid, fSyncPop)
	q.st.Peek(tid).update(0)
	q.acquire(tid)
	q.st.Peek(tid).update(1)
	t := readV(&q.tail) - 1
	q.st.Peek(tid).updateVar(2, 0, q.computeIndex(t))
	writeV(&q.tail, t)
	q.st.Peek(tid).update(3)
	if readV(&q.head) <= t {
		result = q.elems[t&q.mask]
		found = true
	} else {
		q.st.Peek(tid).update(4)
		writeV(&q.tail, t+1) // restore the tail
	}
	q.st.Peek(tid).updateVar(5, 1, b2i(found))
	if readV(&q.head) > t {
		q.st.Peek(tid).update(6)
		writeV(&q.head, 0)
		q.st.Peek(tid).update(7)
		writeV(&q.tail, 0)
		found = false
	}
	q.st.Peek(tid).updateVar(8, 1, b2i(found))
	q.release(tid)
	q.st.Pop(tid)
	return result, found
}

// Push adds an element at the tail.
func (q *Queue[T]) Push(elem T, tid int) {
	q.st.Push(tid, fPush)
	q.st.Peek(tid).update(0)
	t := readV(&q.tail)
	q.st.Peek(tid).updateVar(1, 0, q.computeIndex(t))
	if t < readV(&q.head)+q.mask && t < maxSize { // == t < head + size - 1
		q.elems[t&q.mask] = elem
		q.st.Peek(tid).update(2)
		writeV(&q.tail, t+1) // publish only after the slot is written
	} else {
		q.st.Peek(tid).update(3)
		q.syncPush(elem, tid)
	}
	q.st.Pop(tid)
}

func (q *Queue[T]) syncPush(elem T, tid int) {
	q.st.Push(tid, fSyncPush)
	q.st.Peek(tid).update(0)
	q.acquire(tid)
	q.st.Peek(tid).update(1)
	h := readV(&q.head)
	q.st.Peek(tid).updateVar(2, 0, q.computeIndex(h))
	count := readV(&q.tail) - h
	h &= q.mask // normalize the head
	q.st.Peek(tid).updateVar(3, 0, q.computeIndex(h))
	q.st.Peek(tid).updateVar(3, 1, int(count))
	writeV(&q.head, h)
	q.st.Peek(tid).update(4)
	writeV(&q.tail, h+count)
	if count >= q.mask {
		newSize := 2 * (q.mask + 1)
		if q.mask == 0 {
			newSize = initialSize
		}
		if newSize >= maxSize {
			panic("work-stealing queue: too large")
		}
		grown := make([]T, newSize)
		for i := int64(0); i < count; i++ {
			grown[i] = q.elems[(h+i)&q.mask]
		}
		q.elems = grown
		q.mask = newSize - 1
		q.st.Peek(tid).update(5)
		q.head.Store(0)
		q.st.Peek(tid).update(6)
		q.tail.Store(count)
	}
	if count >= q.mask {
		panic("work-stealing queue: no room after growing")
	}
	q.st.Peek(tid).update(7)
	t := readV(&q.tail)
	q.elems[t&q.mask] = elem
	q.st.Peek(tid).updateVar(8, 2, q.computeIndex(t))
	writeV(&q.tail, t+1)
	q.st.Peek(tid).update(9)
	q.release(tid)
	q.st.Pop(tid)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Obj is a task; Operation must run exactly once on each.
type Obj struct{ field int }

// Operation processes the task.
func (o *Obj) Operation() { o.field++ }

// Config is the test's parameters.
type Config struct {
	Stealers, Items, StealAttempts int
}

// Default is the configuration used by the test.
var Default = Config{Stealers: 2, Items: 4, StealAttempts: 2}

// Run runs the owner and the stealers and returns how many times each item
// was operated on.
func Run(c Config) []int {
	st := newState()
	const tid = 0
	st.Push(tid, fRunTest)
	items := make([]Obj, c.Items)
	q := NewQueue[*Obj](st, 2)
	var wg sync.WaitGroup
	for i := 0; i < c.Stealers; i++ {
		wg.Add(1)
		go func(tid int) {
			defer wg.Done()
			st.Push(tid, fStealer)
			for j := 0; j < c.StealAttempts; j++ {
				st.Peek(tid).updateVar(0, 0, j)
				if r, ok := q.Steal(tid); ok {
					r.Operation()
				}
			}
			st.Pop(tid)
		}(i + 1)
	}
	for i := 0; i < c.Items/2; i++ {
		st.Peek(tid).updateVar(1, 0, i)
		q.Push(&items[2*i], tid)
		st.Peek(tid).updateVar(2, 0, i)
		q.Push(&items[2*i+1], tid)
		st.Peek(tid).updateVar(3, 0, i)
		if r, ok := q.Pop(tid); ok {
			r.Operation()
		}
	}
	for i := 0; i < c.Items/2; i++ {
		st.Peek(tid).updateVar(4, 0, i)
		if r, ok := q.Pop(tid); ok {
			r.Operation()
		}
	}
	st.Peek(tid).update(5)
	wg.Wait()
	counts := make([]int, c.Items)
	for i := range items {
		counts[i] = items[i].field
	}
	st.Pop(tid)
	st.Clear()
	return counts
}
