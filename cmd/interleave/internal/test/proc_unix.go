//go:build unix

package test

import (
	"os"
	"os/exec"
	"strconv"
)

// inherit has cmd's process inherit files, from descriptor 3 on, and returns the names it
// opens them by (/dev/fd/N; explore.OpenStream).
func inherit(cmd *exec.Cmd, files []*os.File) []string {
	cmd.ExtraFiles = append(cmd.ExtraFiles, files...)
	names := make([]string, len(files))
	for i := range files {
		names[i] = "/dev/fd/" + strconv.Itoa(3+len(cmd.ExtraFiles)-len(files)+i)
	}
	return names
}

// Interrupt asks cmd's process to stop (SIGINT): a test binary ends after the execution
// under way and reports what it found.
func Interrupt(cmd *exec.Cmd) error { return cmd.Process.Signal(os.Interrupt) }
