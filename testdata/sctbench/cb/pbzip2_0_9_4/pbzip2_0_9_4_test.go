package pbzip2_0_9_4

import "testing"

func TestPbzip2094(t *testing.T) {
	if out := Run(Input()); len(out) == 0 {
		t.Fatal("output file is empty")
	}
}
