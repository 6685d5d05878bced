//go:build unix

package instrument

import (
	"os/exec"
	"syscall"
)

// killTree kills cmd's process group (Command made it a group's leader): the process and
// everything it started.
func killTree(cmd *exec.Cmd) error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
