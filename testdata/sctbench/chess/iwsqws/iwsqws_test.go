package iwsqws

import "testing"

func TestIWSQWS(t *testing.T) {
	for i, n := range Run(Default) {
		if n != 1 {
			t.Errorf("item %d operated on %d times, want 1", i, n)
		}
	}
}
