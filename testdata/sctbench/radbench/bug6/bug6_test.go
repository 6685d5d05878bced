package bug6

import "testing"

// TestBug6 deadlocks when the writer arrives between the reader's two read
// locks.
func TestBug6(t *testing.T) {
	Run()
}
