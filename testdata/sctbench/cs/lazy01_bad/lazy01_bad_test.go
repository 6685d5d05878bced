package lazy01_bad

import "testing"

func TestLazy01Bad(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
