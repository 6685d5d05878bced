package aget_bug2

import "testing"

func TestAgetBug2(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
