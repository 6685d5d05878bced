package reorder_4_bad

import "testing"

func TestReorder4Bad(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
