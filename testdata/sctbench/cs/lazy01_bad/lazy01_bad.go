// Package lazy01_bad is SCTBench benchmark 16, CS.lazy01_bad.
//
// The original has two threads add 1 and 2 to a shared value under a mutex
// while a third asserts, under the same mutex, that the value is below 3:
// the assertion fails when the checker runs after both adders. Four threads:
// main and the three workers.
package lazy01_bad

import (
	"fmt"
	"sync"
)

type state struct {
	mu   sync.Mutex
	data int
}

// Run starts the two adders and the checker, joins them and returns the
// checker's assertion failure.
func Run() error {
	s := &state{}
	var err error
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		s.mu.Lock()
		s.data++
		s.mu.Unlock()
	}()
	go func() {
		defer wg.Done()
		s.mu.Lock()
		s.data += 2
		s.mu.Unlock()
	}()
	go func() {
		defer wg.Done()
		s.mu.Lock()
		if s.data >= 3 {
			err = fmt.Errorf("data is %d", s.data)
		}
		s.mu.Unlock()
	}()
	wg.Wait()
	return err
}
