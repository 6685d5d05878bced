package ferret

import (
	"strings"
	"testing"
)

// TestFerret deadlocks when the output thread finishes before the load
// thread sets input_end.
func TestFerret(t *testing.T) {
	out := Run(2, 2, Images())
	if n := strings.Count(out, "\n"); n != 2 {
		t.Errorf("got %d results, want 2:\n%s", n, out)
	}
}
