package figure1

import "testing"

func TestFigure1(t *testing.T) {
	if !Run() {
		t.Fatal("assertion x == y failed: T3 ran between T1's writes of x and y")
	}
}
