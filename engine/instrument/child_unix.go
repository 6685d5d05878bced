//go:build unix && !linux

package instrument

import (
	"os/exec"
	"syscall"
)

// dieWithParent puts the child in a process group of its own, which a canceled context kills
// whole. (Only Linux lets the kernel kill it when the tool dies.)
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killTree(cmd) }
}
