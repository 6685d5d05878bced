package qsort_mt

import "testing"

func TestQsortMt(t *testing.T) {
	a := Input(32)
	Sort(a, 2, 4)
	for i := 1; i < len(a); i++ {
		if a[i-1] > a[i] {
			t.Fatalf("sort error at position %d: %d > %d (failed to verify sorted list)", i, a[i-1], a[i])
		}
	}
}
