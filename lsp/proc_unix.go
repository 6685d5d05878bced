//go:build unix

package lsp

import (
	"os/exec"
	"syscall"
)

// interruptTree puts cmd in a process group of its own and has canceling its context
// interrupt the whole group (SIGINT): the run stops and keeps what it found.
func interruptTree(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
}

// processGone reports whether the process pid no longer exists.
func processGone(pid int) bool {
	return syscall.Kill(pid, 0) == syscall.ESRCH
}
