package engine

import (
	"syscall"
	"time"
)

// sleepOutsideRuntimeTimers blocks the calling goroutine's thread in a system call for d:
// select with no descriptors, as package syscall has no nanosleep on macOS.
func sleepOutsideRuntimeTimers(d time.Duration) {
	tv := syscall.NsecToTimeval(int64(d))
	syscall.Select(0, nil, nil, nil, &tv)
}
