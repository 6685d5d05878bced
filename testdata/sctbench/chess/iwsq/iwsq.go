// Package iwsq is SCTBench benchmark 32, chess.IWSQ (Thomson, Donaldson &
// Betts; originally the CHESS test InterlockedWorkStealQueue.cpp, translated
// by the study to pthreads and C++11 atomics). It is chess.WSQ with the
// queue's lock replaced by a spin lock built on an atomic exchange
// (USE_NON_BLOCKING_SYNC), whose retry loop yields.
//
// The program is a Cilk-style THE work-stealing queue: the owner pushes and
// pops at the tail without a lock on the fast path, stealers take from the
// head under the queue's lock, and both fall back to a locked slow path
// (SyncPop, SyncPush, which grows the array) when they may conflict. Head and
// tail are sequentially consistent atomics, written with an exchange as in the
// original. The owner (the test goroutine) pushes 4 items two at a time,
// popping one after each pair, then pops the rest; two stealer goroutines
// each try to steal twice. Every item must be operated on exactly once.
//
// The bug (BUG3 in the original) is Push's fast-path capacity check, which
// admits one element too many (t < head+mask+1 instead of t < head+mask).
// When a stealer has just incremented head, the owner can write into the
// slot that the stealer is taking, so one item is processed twice and
// another never: the final check fails. The study's
// IDB found it with two delays; IPB and DFS did not.
//
// Threads: 3 (owner plus two stealers, Table III's count; the original's
// default is one stealer). The queue starts with capacity 2. Nothing else is
// simplified.
package iwsq

import (
	"runtime"
	"sync"
	"sync/atomic"
)

const (
	maxSize     = 1024 * 1024
	initialSize = 1024
)

// spinLock is a test-and-set lock on an atomic exchange; a failed attempt
// yields (sleep(0) in the original).
type spinLock struct{ state atomic.Int32 }

// Lock acquires l.
func (l *spinLock) Lock() {
	for l.state.Swap(1) != 0 {
		runtime.Gosched()
	}
}

// Unlock releases l.
func (l *spinLock) Unlock() { l.state.Store(0) }

// Queue is the work-stealing queue of items of type T.
type Queue[T any] struct {
	mu    spinLock
	head  atomic.Int64 // only updated by Steal (and the slow paths)
	tail  atomic.Int64 // only updated by Push and Pop
	elems []T
	mask  int64
}

// NewQueue returns an empty queue of the given capacity (a power of two).
func NewQueue[T any](size int64) *Queue[T] {
	q := &Queue[T]{elems: make([]T, size), mask: size - 1}
	q.writeV(&q.head, 0)
	q.writeV(&q.tail, 0)
	return q
}

// readV is an atomic read (the original uses a compare-and-swap of 0 by 0
// for the same effect).
func (q *Queue[T]) readV(v *atomic.Int64) int64 { return v.Load() }

func (q *Queue[T]) writeV(v *atomic.Int64, w int64) { v.Swap(w) }

// Steal takes an element from the head.
func (q *Queue[T]) Steal() (result T, found bool) {
	q.mu.Lock()
	h := q.readV(&q.head)
	q.writeV(&q.head, h+1)
	if h < q.readV(&q.tail) {
		result = q.elems[h&q.mask]
		found = true
	} else {
		q.writeV(&q.head, h) // restore the head
	}
	q.mu.Unlock()
	return result, found
}

// Pop takes an element from the tail.
func (q *Queue[T]) Pop() (T, bool) {
	t := q.readV(&q.tail) - 1
	q.writeV(&q.tail, t)
	if q.readV(&q.head) <= t {
		return q.elems[t&q.mask], true
	}
	q.writeV(&q.tail, t+1) // restore the tail
	return q.syncPop()
}

func (q *Queue[T]) syncPop() (result T, found bool) {
	q.mu.Lock()
	t := q.readV(&q.tail) - 1
	q.writeV(&q.tail, t)
	if q.readV(&q.head) <= t {
		result = q.elems[t&q.mask]
		found = true
	} else {
		q.writeV(&q.tail, t+1) // restore the tail
	}
	if q.readV(&q.head) > t {
		q.writeV(&q.head, 0)
		q.writeV(&q.tail, 0)
		found = false
	}
	q.mu.Unlock()
	return result, found
}

// Push adds an element at the tail.
func (q *Queue[T]) Push(elem T) {
	t := q.readV(&q.tail)
	// BUG: the queue is full at head+mask, not head+mask+1.
	if t < q.readV(&q.head)+q.mask+1 && t < maxSize {
		q.elems[t&q.mask] = elem
		q.writeV(&q.tail, t+1) // publish only after the slot is written
		return
	}
	q.syncPush(elem)
}

func (q *Queue[T]) syncPush(elem T) {
	q.mu.Lock()
	h := q.readV(&q.head)
	count := q.readV(&q.tail) - h
	h &= q.mask // normalize the head
	q.writeV(&q.head, h)
	q.writeV(&q.tail, h+count)
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
		q.writeV(&q.head, 0)
		q.writeV(&q.tail, count)
	}
	if count >= q.mask {
		panic("work-stealing queue: no room after growing")
	}
	t := q.readV(&q.tail)
	q.elems[t&q.mask] = elem
	q.writeV(&q.tail, t+1)
	q.mu.Unlock()
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
	items := make([]Obj, c.Items)
	q := NewQueue[*Obj](2)
	var wg sync.WaitGroup
	for i := 0; i < c.Stealers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < c.StealAttempts; j++ {
				if r, ok := q.Steal(); ok {
					r.Operation()
				}
			}
		}()
	}
	for i := 0; i < c.Items/2; i++ {
		q.Push(&items[2*i])
		q.Push(&items[2*i+1])
		if r, ok := q.Pop(); ok {
			r.Operation()
		}
	}
	for i := 0; i < c.Items/2; i++ {
		if r, ok := q.Pop(); ok {
			r.Operation()
		}
	}
	wg.Wait()
	counts := make([]int, c.Items)
	for i := range items {
		counts[i] = items[i].field
	}
	return counts
}
