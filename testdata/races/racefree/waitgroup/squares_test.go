package waitgroup

import (
	"sync"
	"testing"
)

// TestSquares computes squares in three workers, and also has two workers
// of its own fill a shared report that it reads after Wait.
func TestSquares(t *testing.T) {
	got := Squares([]int{1, 2, 3})
	for i, want := range []int{1, 4, 9} {
		if got[i] != want {
			t.Errorf("Squares()[%d] = %d, want %d", i, got[i], want)
		}
	}

	var report struct {
		first, second string
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		report.first = "one"
	}()
	go func() {
		defer wg.Done()
		report.second = "two"
	}()
	wg.Wait()
	if report.first != "one" || report.second != "two" {
		t.Errorf("report = %+v", report)
	}
}
