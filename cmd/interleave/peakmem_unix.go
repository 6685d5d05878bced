//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// peakMemory is the peak resident memory in bytes of a process that has ended, 0 if the
// system does not say.
func peakMemory(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	switch runtime.GOOS {
	case "darwin", "ios":
		return int64(ru.Maxrss) // bytes
	default:
		return int64(ru.Maxrss) * 1024 // kilobytes
	}
}
