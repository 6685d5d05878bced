package safestack

import "testing"

func TestSafestack(t *testing.T) {
	for _, f := range Run() {
		t.Error("assertion failed:", f)
	}
}
