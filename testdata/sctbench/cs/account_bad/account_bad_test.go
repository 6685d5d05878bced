package account_bad

import "testing"

func TestAccountBad(t *testing.T) {
	if err := Run(); err != nil {
		t.Fatal(err)
	}
}
