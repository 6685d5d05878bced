package instrument

import (
	"os/exec"
	"syscall"
)

// dieWithParent puts the child in a process group of its own and has the kernel kill it when
// the tool's thread that started it dies (PR_SET_PDEATHSIG).
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return killTree(cmd) }
}
