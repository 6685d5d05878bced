package reorder_10_bad

import "testing"

func TestReorder10Bad(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
