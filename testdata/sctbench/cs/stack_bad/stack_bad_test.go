package stack_bad

import "testing"

func TestStackBad(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
