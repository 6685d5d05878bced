package wronglock_3_bad

import "testing"

func TestWronglock3Bad(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
