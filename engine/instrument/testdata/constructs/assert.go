package constructs

import "testing"

// Equal is an assertion helper in a file that is not a test file, taking *testing.T as
// test-utility packages of real modules do (pond's internal/testutils/assert): the test
// passes it its own t, whose methods reach the per-schedule test through the harness.
func Equal(t *testing.T, got, want int) {
	t.Helper()
	if got != want {
		t.Errorf("got %d, want %d", got, want)
	}
}
