package din_phil4_sat

import "testing"

func TestDinPhil4Sat(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
