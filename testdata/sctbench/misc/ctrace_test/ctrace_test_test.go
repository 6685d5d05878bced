package ctrace_test

import (
	"runtime"
	"testing"
)

// TestCtraceTest runs the harness with argument "2", as the study did; a
// use of a freed thread record panics.
//
// Goroutines start far sooner than pthreads, so natively thread 1 would
// usually win the race that the original usually loses; running on one P
// keeps native runs close to the original's native behaviour. It has no
// effect under a controlled scheduler.
func TestCtraceTest(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	Run("2")
}
