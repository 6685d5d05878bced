package din_phil2_sat

import "testing"

func TestDinPhil2Sat(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
