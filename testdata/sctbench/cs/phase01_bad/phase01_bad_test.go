package phase01_bad

import "testing"

func TestPhase01Bad(t *testing.T) {
	Run()
}
