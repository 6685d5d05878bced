package interleave

import "testing"

// debugTest serves a debugging session of the test body over the control connection at addr
// (INTERLEAVE_DEBUG, set by interleave dap).
func debugTest(t *testing.T, body func(*T), addr string) {
	t.Helper()
	t.Fatalf("interleave: INTERLEAVE_DEBUG=%s: this build has no debugging support", addr)
}
