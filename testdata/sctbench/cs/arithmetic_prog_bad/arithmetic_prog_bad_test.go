package arithmetic_prog_bad

import "testing"

func TestArithmeticProgBad(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
