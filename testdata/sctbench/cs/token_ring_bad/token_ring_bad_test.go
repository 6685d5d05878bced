package token_ring_bad

import "testing"

func TestTokenRingBad(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
