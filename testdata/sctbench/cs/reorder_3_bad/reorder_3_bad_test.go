package reorder_3_bad

import "testing"

func TestReorder3Bad(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
