package din_phil6_sat

import "testing"

func TestDinPhil6Sat(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
