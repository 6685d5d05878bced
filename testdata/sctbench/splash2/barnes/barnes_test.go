package barnes

import (
	"runtime"
	"testing"
)

// TestBarnes runs Barnes with NPROC = 2, 16 bodies and 2 steps and checks numFinished == NPROC
// right after the (empty) WAIT_FOR_END, as the study's added assertion does.
//
// Natively, on several Ps, the main goroutine nearly always leaves the last
// barrier first and the check fails. On one P the yielding barrier hands
// over between the two goroutines in turn, so with an odd number of barriers
// the other process leaves the last one first and the native run passes.
// GOMAXPROCS has no effect under a controlled scheduler.
func TestBarnes(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	finished, join := Run(2, 16, 2)
	if finished != 2 {
		t.Errorf("assertion numFinished == NPROC failed: numFinished = %d, NPROC = 2", finished)
	}
	if e := join(); e > 1e-9 {
		t.Errorf("total momentum %g, want 0", e)
	}
}
