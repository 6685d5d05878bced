package twostage_bad

import "testing"

func TestTwostageBad(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
