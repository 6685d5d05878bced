package explore

import (
	"os"
	"runtime"
	"testing"
)

// TestPeakMemory: after 64 MB have been allocated and touched, the peak is at least that.
func TestPeakMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		if got := peakMemory(); got != 0 {
			t.Fatalf("peakMemory() = %d without /proc/self/status, want 0", got)
		}
		t.Skip("no /proc/self/status")
	}
	const size = 64 << 20
	b := make([]byte, size)
	for i := 0; i < size; i += 4096 {
		b[i] = 1
	}
	got := peakMemory()
	runtime.KeepAlive(b)
	if got < size {
		t.Fatalf("peakMemory() = %d after %d bytes were touched, want at least that", got, size)
	}
}
