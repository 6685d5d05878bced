// Package safestack is SCTBench benchmark 38, misc.safestack (Thomson,
// Donaldson & Betts; a test case posted by Dmitry Vyukov to the CHESS forums:
// SafeStack.cpp).
//
// SafeStack is a lock-free stack of array indices: each array item holds a
// value and the index of the next item, head is the index of the top item
// and count the number of items. Pop claims the top item by exchanging its
// next link with -1 and then moves head with a compare-and-swap, restoring
// the link if the CAS fails; it only pops while count > 1, and yields when it
// finds a claimed item. Push links an item in with a CAS loop. Three threads
// each pop an item, write their id into it, assert that the item still holds
// their id, and push it back, twice.
//
// The bug (an ABA problem) lets two threads own the same item, so one
// thread's assertion sees the other's id. Vyukov reports it needs three
// threads and at least five preemptions; no technique in the study found it
// (Relacy's random scheduler did, after 75,058 schedules).
//
// Threads: 4 (the test goroutine plus three workers), as the original. The
// atomics are sequentially consistent here (the bug also manifests under
// sequential consistency); the item values are plain fields, as the
// original's volatile ints. Nothing is simplified.
package safestack

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

type item struct {
	value int
	next  atomic.Int32
}

// Stack is the lock-free stack of indices into its array.
type Stack struct {
	head  atomic.Int32
	count atomic.Int32
	array []item
}

// NewStack returns a stack holding the indices 0..n-1.
func NewStack(n int) *Stack {
	s := &Stack{array: make([]item, n)}
	s.count.Store(int32(n))
	s.head.Store(0)
	for i := 0; i < n-1; i++ {
		s.array[i].next.Store(int32(i + 1))
	}
	s.array[n-1].next.Store(-1)
	return s
}

// Pop returns the index of the popped item, or -1 when one item or none is
// left.
func (s *Stack) Pop() int {
	for s.count.Load() > 1 {
		head1 := s.head.Load()
		next1 := s.array[head1].next.Swap(-1)
		if next1 >= 0 {
			if s.head.CompareAndSwap(head1, next1) {
				s.count.Add(-1)
				return int(head1)
			}
			s.array[head1].next.Swap(next1)
		} else {
			runtime.Gosched()
		}
	}
	return -1
}

// Push pushes the item at index.
func (s *Stack) Push(index int) {
	head1 := s.head.Load()
	for {
		s.array[index].next.Store(head1)
		if s.head.CompareAndSwap(head1, int32(index)) {
			break
		}
		head1 = s.head.Load()
	}
	s.count.Add(1)
}

// Run runs the three workers and returns the assertion failures they saw.
func Run() []string {
	const threads = 3
	s := NewStack(3)
	var mu sync.Mutex
	var failures []string
	var wg sync.WaitGroup
	for idx := 0; idx < threads; idx++ {
		wg.Add(1)
		go func(idx int) {
			defer wg.Done()
			for i := 0; i < 2; i++ {
				var elem int
				for {
					elem = s.Pop()
					if elem >= 0 {
						break
					}
					runtime.Gosched()
				}
				s.array[elem].value = idx
				if got := s.array[elem].value; got != idx {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("thread %d found %d in the item it popped", idx, got))
					mu.Unlock()
				}
				s.Push(elem)
			}
		}(idx)
	}
	wg.Wait()
	return failures
}
