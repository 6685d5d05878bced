package engine

import (
	"strings"
	"testing"
)

// TestStallReasonFollowsTheStuckGoroutine: the watchdog's message about a stalled execution
// follows the state of the goroutine that did not reach a scheduling point — blocked where it
// waits, or a loop when it runs — and not whatever other goroutine happens to run at the
// traceback (under load, another test's goroutine was caught entering a write, and a goroutine
// blocked on a real channel was reported as a loop).
func TestStallReasonFollowsTheStuckGoroutine(t *testing.T) {
	const watchdog = "goroutine 1 [running]:\nexample.com/w.watch()\n\t/w/w.go:1 +0x1\n\n"
	stuck := func(status, top string) string {
		return "goroutine 7 [" + status + "]:\n" +
			top + "()\n\t/p/p_test.go:12 +0x25\n" +
			enginePkg + "(*Exec).call(0xc000100000)\n\t/e/goroutine.go:158 +0x1\n" +
			enginePkg + "(*Exec).run(0xc000100000)\n\t/e/goroutine.go:26 +0x1\n\n"
	}
	const writer = "goroutine 9 [running]:\nsyscall.Syscall(0x1, 0x2, 0xc0000a0000, 0x10)\n\t/go/src/syscall/syscall_linux.go:73 +0x25\nos.(*File).Write(0xc000010018)\n\t/go/src/os/file.go:195 +0x4f\n\n"
	for _, tc := range []struct {
		name, traceback, want string
	}{
		{"blocked, another goroutine in a system call", watchdog + stuck("chan receive", "example.com/p.TestX.func1") + writer,
			"it is blocked outside the engine's control, in example.com/p.TestX.func1 (/p/p_test.go:12) [chan receive]"},
		{"blocked, alone", watchdog + stuck("chan receive", "example.com/p.TestX.func1"),
			"it is blocked outside the engine's control, in example.com/p.TestX.func1 (/p/p_test.go:12) [chan receive]"},
		{"a loop", watchdog + stuck("running", "example.com/p.spin") + writer,
			"it kept running without one (a goroutine is running in example.com/p.spin)"},
	} {
		if got := stallReason(examine([]byte(tc.traceback))); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, want it to begin %q", tc.name, got, tc.want)
		}
	}
}
