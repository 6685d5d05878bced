package twostage_100_bad

import "testing"

func TestTwostage100Bad(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
