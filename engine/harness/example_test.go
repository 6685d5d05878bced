package harness

import "testing"

// exampleMismatch compares as go test does: spaces around the output trimmed, an unordered
// output as a set of lines, and reports the difference with go test's got/want.
func TestExampleMismatch(t *testing.T) {
	for _, tc := range []struct {
		got, want string
		unordered bool
		report    string
	}{
		{"a\nb\n", "a\nb\n", false, ""},
		{"  a\nb\n\n", "a\nb", false, ""},
		{"b\na\n", "a\nb\n", false, "got:\nb\na\nwant:\na\nb"},
		{"b\na\n", "a\nb\n", true, ""},
		{"a\na\n", "a\nb\n", true, "got:\na\na\n\nwant (unordered):\na\nb\n"},
		{"", "", false, ""},
		{"x\n", "", false, "got:\nx\nwant:\n"},
	} {
		if got := exampleMismatch(tc.got, tc.want, tc.unordered); got != tc.report {
			t.Errorf("exampleMismatch(%q, %q, %v) = %q, want %q", tc.got, tc.want, tc.unordered, got, tc.report)
		}
	}
}
