//go:build linux || freebsd || netbsd || openbsd

package engine

import (
	"syscall"
	"time"
)

// sleepOutsideRuntimeTimers blocks the calling goroutine's thread in a system call for d.
func sleepOutsideRuntimeTimers(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	syscall.Nanosleep(&ts, nil)
}
