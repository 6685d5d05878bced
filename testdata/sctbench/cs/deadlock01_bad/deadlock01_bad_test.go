package deadlock01_bad

import "testing"

func TestDeadlock01Bad(t *testing.T) {
	Run()
}
