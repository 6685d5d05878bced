package period_once

import "testing"

// TestPeriodOnce fails (panics) under any of the three bugs: nil
// dereference, use after free or double free of the lock.
func TestPeriodOnce(t *testing.T) {
	Run()
}
