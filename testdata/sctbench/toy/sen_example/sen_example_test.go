package sen_example

import "testing"

func TestSenExample(t *testing.T) {
	if !Run() {
		t.Fatal("assertion failed: thread 2 saw x == 4")
	}
}
