package sync01_bad

import "testing"

func TestSync01Bad(t *testing.T) {
	Run()
}
