package carter01_bad

import "testing"

func TestCarter01Bad(t *testing.T) {
	Run()
}
