package lsp

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
)

// interruptTree has canceling cmd's context end its whole process tree. Windows cannot send
// an interrupt to a process without a console of its own, so a canceled run ends at once
// (what it saved before stays in the store; its final summary is lost).
func interruptTree(cmd *exec.Cmd) {
	cmd.Cancel = func() error {
		taskkill := filepath.Join(os.Getenv("SystemRoot"), "System32", "taskkill.exe")
		err := exec.Command(taskkill, "/T", "/F", "/PID", strconv.Itoa(cmd.Process.Pid)).Run()
		if kerr := cmd.Process.Kill(); kerr != nil && !errors.Is(kerr, os.ErrProcessDone) && err != nil {
			return kerr
		}
		return nil
	}
}

// processGone reports whether the process pid no longer exists (or has exited).
func processGone(pid int) bool {
	const processQueryLimitedInformation = 0x1000
	const stillActive = 259
	h, err := syscall.OpenProcess(processQueryLimitedInformation, false, uint32(pid))
	if err != nil {
		return !errors.Is(err, syscall.ERROR_ACCESS_DENIED)
	}
	defer syscall.CloseHandle(h)
	var code uint32
	if err := syscall.GetExitCodeProcess(h, &code); err != nil {
		return false
	}
	return code != stillActive
}
