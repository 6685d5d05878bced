package sync02_bad

import "testing"

func TestSync02Bad(t *testing.T) {
	Run()
}
