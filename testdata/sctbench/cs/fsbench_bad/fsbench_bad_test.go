package fsbench_bad

import "testing"

func TestFsbenchBad(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
