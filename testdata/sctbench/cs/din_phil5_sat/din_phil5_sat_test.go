package din_phil5_sat

import "testing"

func TestDinPhil5Sat(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
