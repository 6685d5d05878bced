// Package wronglock_3_bad is SCTBench benchmark 30, CS.wronglock_3_bad.
//
// The original (wronglock with iNum1=1, iNum2=3) protects one shared value
// with two different locks: one thread increments it under dataLock and
// asserts the value is its own read plus one, while 3 other threads
// increment it under thisLock. Since the locks differ, another increment can
// land between the checker's read and its check, and the assertion fails.
// 5 threads: main, the checker and the 3 incrementers.
package wronglock_3_bad

import (
	"fmt"
	"sync"
)

const (
	iNum1 = 1
	iNum2 = 3
)

type state struct {
	dataLock, thisLock sync.Mutex
	dataValue          int
}

func (s *state) funcA() error {
	s.dataLock.Lock()
	defer s.dataLock.Unlock()
	x := s.dataValue
	s.dataValue++
	if v := s.dataValue; v != x+1 {
		return fmt.Errorf("read %d, then %d after the increment", x, v)
	}
	return nil
}

func (s *state) funcB() {
	s.thisLock.Lock()
	s.dataValue++
	s.thisLock.Unlock()
}

// Run starts the checker and the incrementers, joins them and returns the
// checker's assertion failure.
func Run() error {
	s := &state{}
	var err error
	var wg sync.WaitGroup
	wg.Add(iNum1 + iNum2)
	for i := 0; i < iNum1; i++ {
		go func() { defer wg.Done(); err = s.funcA() }()
	}
	for i := 0; i < iNum2; i++ {
		go func() { defer wg.Done(); s.funcB() }()
	}
	wg.Wait()
	return err
}
