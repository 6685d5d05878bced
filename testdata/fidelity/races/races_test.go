package races

import (
	"sync"
	"testing"
)

func TestAtomicAndPlain(t *testing.T) {
	s := &Stats{}
	HitWhileReset(s, s.ResetPlain)
}

func TestAtomicBoth(t *testing.T) {
	s := &Stats{}
	HitWhileReset(s, s.Reset)
}

func TestAddInsideGoroutine(t *testing.T) {
	var wg sync.WaitGroup
	SpawnAddInside(&wg, func() {})
	wg.Wait()
}

func TestAddBeforeGo(t *testing.T) {
	var wg sync.WaitGroup
	Spawn(&wg, func() {})
	wg.Wait()
}

func TestLoopVariableCaptured(t *testing.T) {
	SumCaptured(2)
}

func TestLoopVariablePassed(t *testing.T) {
	if got := Sum(2); got != 1 {
		t.Fatalf("sum = %d, want 1", got)
	}
}

func TestRangeVariableCaptured(t *testing.T) {
	SumRangeCaptured([]int{1, 2})
}

func TestRangeVariablePassed(t *testing.T) {
	if got := SumRange([]int{1, 2}); got != 3 {
		t.Fatalf("sum = %d, want 3", got)
	}
}
