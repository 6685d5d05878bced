package figure2

import "testing"

func TestFigure2(t *testing.T) {
	if !Run() {
		t.Fatal("assertion x == y failed: T3 ran between the writes of x and y of T1 or T2")
	}
}
