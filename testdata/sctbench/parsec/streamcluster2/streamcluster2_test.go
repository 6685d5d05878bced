package streamcluster2

import (
	"reflect"
	"testing"
)

// want is the output of a correct run (the same with any thread count).
var want = []float64{0.18758951127529144, 0.5654894113540649}

// TestStreamcluster2 runs the harness's "test" input (kmin 2, kmax 5, dimension 1,
// 10 points) with 3 threads per local search and checks the output.
//
// Natively the master usually outruns the other threads' initialisation of
// their blocks, so unlike most benchmarks here this one fails in most
// native runs.
func TestStreamcluster2(t *testing.T) {
	if got := Run(3, 2, 5, 1, 10); !reflect.DeepEqual(got, want) {
		t.Errorf("incorrect output: centers %v, want %v", got, want)
	}
}
