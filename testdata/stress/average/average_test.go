package average

import (
	"testing"

	"github.com/interleave-dev/interleave/engine/random"
)

func TestMean(t *testing.T) {
	n := random.Draw(t, "values", random.NewUniform(0, 20))
	workers := random.Draw(t, "workers", random.NewUniform(1, 4))
	xs := make([]int, n)
	for i := range xs {
		xs[i] = 7
	}
	if got := Mean(xs, workers); got != 7 {
		t.Fatalf("Mean of %d sevens = %d", n, got)
	}
}
