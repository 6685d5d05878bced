package dap

import "testing"

// TestUserTypeName: the per-schedule test handle is shown as the type the test declares.
func TestUserTypeName(t *testing.T) {
	for in, want := range map[string]string{
		"*github.com/interleave-dev/interleave/engine.T":         "*testing.T",
		"github.com/interleave-dev/interleave/engine/harness.TB": "testing.TB",
		"[]*github.com/interleave-dev/interleave/engine.T":       "[]*testing.T",
		"*example.com/bank.Account":                              "*example.com/bank.Account",
		"github.com/interleave-dev/interleave/engine.Timer":      "github.com/interleave-dev/interleave/engine.Timer",
	} {
		if got := userTypeName(in); got != want {
			t.Errorf("userTypeName(%q) = %q, want %q", in, got, want)
		}
	}
}
