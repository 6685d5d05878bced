//go:build linux || darwin || freebsd || netbsd || openbsd

package engine

import (
	"syscall"
	"time"
)

// processCPUTime is the CPU time the process has used (user and system), and whether the
// system reports it.
func processCPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
