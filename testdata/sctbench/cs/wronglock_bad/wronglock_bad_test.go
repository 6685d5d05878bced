package wronglock_bad

import "testing"

func TestWronglockBad(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
