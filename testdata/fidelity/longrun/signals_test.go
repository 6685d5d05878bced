package longrun

import "testing"

func TestManySignals(t *testing.T) {
	if got := Handoff(200_000); got != 200_000 {
		t.Fatalf("taken %d, want 200000", got)
	}
}
