package fft

import (
	"runtime"
	"testing"
)

// TestFft runs FFT with P = 2 and 16 points and checks numFinished == P
// right after the (empty) WAIT_FOR_END, as the study's added assertion does.
//
// Natively, on several Ps, the main goroutine nearly always leaves the last
// barrier first and the check fails. On one P the yielding barrier hands
// over between the two goroutines in turn, so with an odd number of barriers
// the other process leaves the last one first and the native run passes.
// GOMAXPROCS has no effect under a controlled scheduler.
func TestFft(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	finished, join := Run(2, 4)
	if finished != 2 {
		t.Errorf("assertion numFinished == P failed: numFinished = %d, P = 2", finished)
	}
	if e := join(); e > 1e-9 {
		t.Errorf("inverse transform does not restore the data: error %g", e)
	}
}
