package strategy

import (
	"math"
	"testing"

	"github.com/interleave-dev/interleave/engine"
)

// TestPCTHeapPicksAsThePass runs PCT finding the highest enabled priority in its heap from the
// first decision, and by a pass over the enabled goroutines, on programs with change points,
// yields (busy-wait loops), blocked goroutines and goroutines created beyond the estimate n: the
// same seed must give the same schedules, execution for execution.
func TestPCTHeapPicksAsThePass(t *testing.T) {
	tests := []struct {
		name string
		body func(*engine.T)
	}{
		{"philosophers(3, 2)", philosophers(3, 2)},
		{"spinners(2, 2)", spinners(2, 2)},
		{"manyLockers(40)", manyLockers(40)},
		{"pipeline(2, 3)", pipeline(2, 3)},
		{"selectWhileSending", selectWhileSending},
		{"readersWriter(2, 2)", readersWriter(2, 2)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs := make([][]string, 2)
			for i, from := range []int{math.MaxInt, 1} {
				p, err := NewPCT(PCTConfig{D: 3, Seed: 11, Learn: 10})
				if err != nil {
					t.Fatal(err)
				}
				p.heapFrom = from
				runs[i], _ = schedules(t, tc.body, p, 300)
			}
			distinct := map[string]bool{}
			for k := range runs[0] {
				distinct[runs[0][k]] = true
				if runs[0][k] != runs[1][k] {
					t.Fatalf("execution %d:\npass: %s\nheap: %s", k+1, runs[0][k], runs[1][k])
				}
			}
			if len(distinct) < 10 {
				t.Fatalf("%d distinct schedules of 300: the program does not test the choice", len(distinct))
			}
		})
	}
}
