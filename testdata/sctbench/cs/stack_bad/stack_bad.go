// Package stack_bad is SCTBench benchmark 24, CS.stack_bad.
//
// The original shares a 10-slot stack under one mutex: a pusher pushes 0..9,
// setting a flag after each push, and a popper, in each of 10 iterations,
// pops when the flag is set and asserts the pop did not underflow. The flag
// is never cleared, so when the popper takes the lock twice between two
// pushes it pops an empty stack and the assertion fails. Three threads:
// main, pusher, popper.
package stack_bad

import (
	"errors"
	"fmt"
	"sync"
)

const (
	size      = 10
	overflow  = -1
	underflow = -2
)

type stack struct {
	m    sync.Mutex
	top  int
	arr  [size]int
	flag bool
}

func (s *stack) push(x int) int {
	if s.top == size {
		return overflow
	}
	s.arr[s.top] = x
	s.top++
	return 0
}

func (s *stack) pop() int {
	if s.top == 0 {
		return underflow
	}
	s.top--
	return s.arr[s.top]
}

func (s *stack) pusher() error {
	for i := 0; i < size; i++ {
		s.m.Lock()
		if s.push(i) == overflow {
			s.m.Unlock()
			return fmt.Errorf("push %d overflows", i)
		}
		s.flag = true
		s.m.Unlock()
	}
	return nil
}

func (s *stack) popper() error {
	for i := 0; i < size; i++ {
		s.m.Lock()
		if s.flag && s.pop() == underflow {
			s.m.Unlock()
			return fmt.Errorf("pop in iteration %d underflows", i)
		}
		s.m.Unlock()
	}
	return nil
}

// Run starts the pusher and the popper, joins them and returns their
// assertion failures.
func Run() error {
	s := &stack{}
	var errA, errB error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); errA = s.pusher() }()
	go func() { defer wg.Done(); errB = s.popper() }()
	wg.Wait()
	return errors.Join(errA, errB)
}
