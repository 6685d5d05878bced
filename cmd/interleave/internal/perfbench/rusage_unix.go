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
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}
