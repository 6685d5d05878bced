package bug1

import "testing"

// TestBug1 crashes (index out of range on the freed table) when a GC walks
// the filename table after the last thread freed it.
func TestBug1(t *testing.T) {
	Run(3)
}
