package loopvar

import "testing"

// TestSum sums in three goroutines; the sum depends on when each read i, so it
// is only logged.
func TestSum(t *testing.T) {
	sum, started := Sum(3)
	t.Logf("sum = %d of %d goroutines (3 with per-iteration variables)", sum, started)
}
