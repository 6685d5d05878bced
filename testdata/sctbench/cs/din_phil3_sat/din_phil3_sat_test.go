package din_phil3_sat

import "testing"

func TestDinPhil3Sat(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
