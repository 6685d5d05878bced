// Package queue_bad is SCTBench benchmark 18, CS.queue_bad.
//
// The original passes values through a 20-slot queue under one mutex: the
// enqueuer first enqueues 0 and records it, then in each of 19 iterations,
// when the enqueue flag is set, enqueues the next value, records it in a
// shadow array at the next index and hands the turn to the dequeuer. The
// dequeuer, in each of 20 iterations, when the dequeue flag is set, asserts
// that the value it dequeues equals the shadow array at its own loop index.
// The loop indices only line up if the threads alternate exactly; when the
// dequeuer spins through an iteration without its turn, the assertion
// fails. Three threads: main, enqueuer, dequeuer.
//
// The queue keeps the original's odd wrap-around (the tail goes from SIZE to
// 1); with these bounds it never wraps.
package queue_bad

import (
	"errors"
	"fmt"
	"sync"
)

const size = 20

type queue struct {
	element    [size]int
	head, tail int
	amount     int
}

func (q *queue) empty() bool { return q.head == q.tail }

func (q *queue) enqueue(x int) {
	q.element[q.tail] = x
	q.amount++
	if q.tail == size {
		q.tail = 1
	} else {
		q.tail++
	}
}

func (q *queue) dequeue() int {
	x := q.element[q.head]
	q.amount--
	if q.head == size {
		q.head = 1
	} else {
		q.head++
	}
	return x
}

type state struct {
	m                        sync.Mutex
	queue                    queue
	stored                   [size]int
	enqueueFlag, dequeueFlag bool
}

func (s *state) enqueuer() error {
	s.m.Lock()
	value := 0
	s.queue.enqueue(value)
	s.stored[0] = value
	if s.queue.empty() {
		s.m.Unlock()
		return errors.New("queue empty after enqueue")
	}
	s.m.Unlock()
	for i := 0; i < size-1; i++ {
		s.m.Lock()
		if s.enqueueFlag {
			value++
			s.queue.enqueue(value)
			s.stored[i+1] = value
			s.enqueueFlag = false
			s.dequeueFlag = true
		}
		s.m.Unlock()
	}
	return nil
}

func (s *state) dequeuer() error {
	for i := 0; i < size; i++ {
		s.m.Lock()
		if s.dequeueFlag {
			if got := s.queue.dequeue(); got != s.stored[i] {
				s.m.Unlock()
				return fmt.Errorf("iteration %d dequeued %d, stored %d", i, got, s.stored[i])
			}
			s.dequeueFlag = false
			s.enqueueFlag = true
		}
		s.m.Unlock()
	}
	return nil
}

// Run starts the enqueuer and the dequeuer, joins them and returns their
// assertion failures.
func Run() error {
	s := &state{enqueueFlag: true}
	var errA, errB error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); errA = s.enqueuer() }()
	go func() { defer wg.Done(); errB = s.dequeuer() }()
	wg.Wait()
	return errors.Join(errA, errB)
}
