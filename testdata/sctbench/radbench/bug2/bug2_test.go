package bug2

import "testing"

// TestBug2 panics with a nil dereference when the worker unbinds its
// context in the middle of the GC's walk.
func TestBug2(t *testing.T) {
	Run(1)
}
