//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package engine

import "time"

// sleepOutsideRuntimeTimers falls back to time.Sleep where no sleeping system call is
// available to the syscall package.
func sleepOutsideRuntimeTimers(d time.Duration) { time.Sleep(d) }
