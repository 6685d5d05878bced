package instrument

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
)

// dieWithParent has a canceled context end the child's whole process tree. Windows has no
// process groups to signal: taskkill /T walks the tree by parent process id. (Windows does not
// kill the child when the tool dies, as Linux does.)
func dieWithParent(cmd *exec.Cmd) {
	cmd.Cancel = func() error { return killTree(cmd) }
}

// killTree ends cmd's process and its descendants with taskkill /T /F, and the process
// itself directly if taskkill cannot (it is not found, or the process has already gone).
func killTree(cmd *exec.Cmd) error {
	err := exec.Command(taskkill(), "/T", "/F", "/PID", strconv.Itoa(cmd.Process.Pid)).Run()
	if kerr := cmd.Process.Kill(); kerr != nil && !errors.Is(kerr, os.ErrProcessDone) && err != nil {
		return fmt.Errorf("kill process %d: taskkill: %v; %w", cmd.Process.Pid, err, kerr)
	}
	return nil
}

// taskkill is taskkill.exe in the system directory, so that a taskkill in the working
// directory or early on PATH is never the one run.
func taskkill() string {
	if root := os.Getenv("SystemRoot"); root != "" {
		return filepath.Join(root, "System32", "taskkill.exe")
	}
	return "taskkill.exe"
}

// processAlive reports whether the process pid exists: it can be opened and has not exited.
func processAlive(pid int) bool {
	const processQueryLimitedInformation = 0x1000
	const stillActive = 259
	h, err := syscall.OpenProcess(processQueryLimitedInformation, false, uint32(pid))
	if err != nil {
		// ERROR_ACCESS_DENIED: it exists, run by someone else.
		return errors.Is(err, syscall.ERROR_ACCESS_DENIED)
	}
	defer syscall.CloseHandle(h)
	var code uint32
	if err := syscall.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == stillActive
}
