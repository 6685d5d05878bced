// Package reorder_4_bad is SCTBench benchmark 22, CS.reorder_4_bad.
//
// The original (reorder_bad with iSet=3, iCheck=1) starts 3 setter
// threads that each write a=1 and then b=-1 without synchronization, and
// 1 checker thread(s) that each read a and then b and assert the pair is
// (0,0) or (1,-1). A checker that reads between a setter's two writes (a=1,
// b=0), or reads a before and b after them (a=0, b=-1), fails. 5
// threads: main, the setters and the checkers.
package reorder_4_bad

import (
	"errors"
	"fmt"
	"sync"
)

const (
	iSet   = 3
	iCheck = 1
)

type state struct {
	a, b int
}

func (s *state) set() {
	s.a = 1
	s.b = -1
}

func (s *state) check() error {
	if !((s.a == 0 && s.b == 0) || (s.a == 1 && s.b == -1)) {
		return fmt.Errorf("checker saw a and b inconsistent")
	}
	return nil
}

// Run starts the setters and then the checkers, joins them and returns the
// checkers' assertion failures.
func Run() error {
	s := &state{}
	errs := make([]error, iCheck)
	var wg sync.WaitGroup
	wg.Add(iSet + iCheck)
	for i := 0; i < iSet; i++ {
		go func() { defer wg.Done(); s.set() }()
	}
	for i := 0; i < iCheck; i++ {
		go func(i int) { defer wg.Done(); errs[i] = s.check() }(i)
	}
	wg.Wait()
	return errors.Join(errs...)
}
