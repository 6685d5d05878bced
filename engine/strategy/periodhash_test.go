package strategy

import (
	"hash/fnv"
	"testing"
)

// TestExecutedHashIsFNV1a: Period.executed's hash is hash/fnv's 64-bit FNV-1a.
func TestExecutedHashIsFNV1a(t *testing.T) {
	for _, key := range []string{"", "[t0]", "[t0×2][t1×2][t0][t2]", "[t0 t1×3][t12]"} {
		h := fnv.New64a()
		h.Write([]byte(key))
		if got, want := executedHash(key), h.Sum64(); got != want {
			t.Errorf("executedHash(%q) = %#x, want %#x", key, got, want)
		}
	}
}
