// Package twostage_100_bad is SCTBench benchmark 28, CS.twostage_100_bad.
//
// The original (twostage with iTThreads=99, iRThreads=1) starts 99
// two-stage writer thread(s) and one reader. A writer sets data1=1 under
// lock 1 and then, in a separate critical section under lock 2, sets
// data2=data1+1. The reader, if it sees data1 set under lock 1, reads data2
// under lock 2 and asserts data2 == data1+1. The two stages are not atomic
// together: a reader that runs between them sees data2=0 and fails.
// 101 threads: main, the writers and the reader.
package twostage_100_bad

import (
	"fmt"
	"sync"
)

const iTThreads = 99

type state struct {
	data1Lock, data2Lock   sync.Mutex
	data1Value, data2Value int
}

func (s *state) funcA() {
	s.data1Lock.Lock()
	s.data1Value = 1
	s.data1Lock.Unlock()

	s.data2Lock.Lock()
	s.data2Value = s.data1Value + 1
	s.data2Lock.Unlock()
}

func (s *state) funcB() error {
	s.data1Lock.Lock()
	if s.data1Value == 0 {
		s.data1Lock.Unlock()
		return nil
	}
	t1 := s.data1Value
	s.data1Lock.Unlock()

	s.data2Lock.Lock()
	t2 := s.data2Value
	s.data2Lock.Unlock()

	if t2 != t1+1 {
		return fmt.Errorf("reader saw data1=%d data2=%d", t1, t2)
	}
	return nil
}

// Run starts the writers and then the reader, joins them and returns the
// reader's assertion failure.
func Run() error {
	s := &state{}
	var err error
	var wg sync.WaitGroup
	wg.Add(iTThreads + 1)
	for i := 0; i < iTThreads; i++ {
		go func() { defer wg.Done(); s.funcA() }()
	}
	go func() { defer wg.Done(); err = s.funcB() }()
	wg.Wait()
	return err
}
