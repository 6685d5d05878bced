package reorder_5_bad

import "testing"

func TestReorder5Bad(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
