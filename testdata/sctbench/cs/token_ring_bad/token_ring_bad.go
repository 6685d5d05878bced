// Package token_ring_bad is SCTBench benchmark 27, CS.token_ring_bad.
//
// The original passes a value around a ring of three variables, each step in
// an atomic section (a global mutex in SCTBench): thread 1 sets x1=(x3+1)%4,
// thread 2 x2=x1, thread 3 x3=x2, each raising its flag; a fourth thread,
// once it sees all three flags, asserts x1 == x2 == x3. Only the order
// 1,2,3 makes them equal, so the assertion fails when the steps ran in
// another order and the checker runs last. Five threads: main and four
// workers.
//
// Simplified: the original main returns without joining its threads; here
// the caller waits for them so that the check is always reported.
package token_ring_bad

import (
	"fmt"
	"sync"
)

type ring struct {
	atomic              sync.Mutex // the original's __ESBMC_atomic_begin/end
	x1, x2, x3          int
	flag1, flag2, flag3 bool
}

func (r *ring) check() error {
	r.atomic.Lock()
	defer r.atomic.Unlock()
	if r.flag1 && r.flag2 && r.flag3 && !(r.x1 == r.x2 && r.x2 == r.x3) {
		return fmt.Errorf("x1=%d x2=%d x3=%d", r.x1, r.x2, r.x3)
	}
	return nil
}

// Run starts the three ring steps and the checker, joins them and returns
// the checker's assertion failure.
func Run() error {
	r := &ring{x1: 1, x2: 2, x3: 1}
	var err error
	var wg sync.WaitGroup
	wg.Add(4)
	go func() {
		defer wg.Done()
		r.atomic.Lock()
		r.x1 = (r.x3 + 1) % 4
		r.flag1 = true
		r.atomic.Unlock()
	}()
	go func() {
		defer wg.Done()
		r.atomic.Lock()
		r.x2 = r.x1
		r.flag2 = true
		r.atomic.Unlock()
	}()
	go func() {
		defer wg.Done()
		r.atomic.Lock()
		r.x3 = r.x2
		r.flag3 = true
		r.atomic.Unlock()
	}()
	go func() { defer wg.Done(); err = r.check() }()
	wg.Wait()
	return err
}
