package reorder_20_bad

import "testing"

func TestReorder20Bad(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
