//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// rusagePeak is the peak resident memory in bytes of an ended process and its waited-for
// children.
func rusagePeak(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	return maxrssBytes(int64(ru.Maxrss), runtime.GOOS)
}

// maxrssBytes converts getrusage's ru_maxrss to bytes: macOS (and iOS) give bytes, the other
// Unix systems kilobytes.
func maxrssBytes(maxrss int64, goos string) int64 {
	if goos == "darwin" || goos == "ios" {
		return maxrss
	}
	return maxrss * 1024
}
