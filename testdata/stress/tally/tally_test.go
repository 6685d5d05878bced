package tally

import "testing"

func TestMerge(t *testing.T) {
	if got := Merge(10, 10); got <= 0 {
		t.Fatalf("Merge(10, 10) = %d, want a positive count", got)
	}
}
