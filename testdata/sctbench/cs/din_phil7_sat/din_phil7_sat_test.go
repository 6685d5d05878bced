package din_phil7_sat

import "testing"

func TestDinPhil7Sat(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
