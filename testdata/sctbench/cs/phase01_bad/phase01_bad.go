// Package phase01_bad is SCTBench benchmark 17, CS.phase01_bad.
//
// The original runs the same function in two threads: lock x, unlock x, lock
// x again and never unlock it (the unlock is commented out), then lock and
// unlock y twice. Whichever thread takes x the second time keeps it, so the
// other blocks on x forever: a deadlock in every interleaving (the study:
// 100% buggy). Three threads: main and the two workers.
//
// Kept as is, so this test deadlocks natively too (it hangs until the test
// timeout).
package phase01_bad

import "sync"

type state struct {
	x, y sync.Mutex
}

func (s *state) thread() {
	s.x.Lock()
	s.x.Unlock()
	s.x.Lock()
	// The original leaves x locked here.
	s.y.Lock()
	s.y.Unlock()
	s.y.Lock()
	s.y.Unlock()
}

// Run starts both threads and joins them; it deadlocks.
func Run() {
	s := &state{}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.thread() }()
	go func() { defer wg.Done(); s.thread() }()
	wg.Wait()
}
