package test

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/interleave-dev/interleave/engine/instrument"
)

// inherit has cmd's process inherit files' handles (Windows has no descriptors beyond the
// standard three: exec.Cmd.ExtraFiles is not supported) and returns the names it opens them
// by (fd:HANDLE; explore.OpenStream). The handles are made inheritable; only processes
// started with them in AdditionalInheritedHandles inherit them.
func inherit(cmd *exec.Cmd, files []*os.File) []string {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	names := make([]string, len(files))
	for i, f := range files {
		h := syscall.Handle(f.Fd())
		syscall.SetHandleInformation(h, syscall.HANDLE_FLAG_INHERIT, syscall.HANDLE_FLAG_INHERIT)
		cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles, h)
		names[i] = "fd:" + strconv.FormatUint(uint64(h), 10)
	}
	return names
}

// Interrupt ends cmd's process tree: Windows has no interrupt to send to a process without
// a console of its own (os.Process.Signal(os.Interrupt) fails there), so an interrupted test
// binary ends at once, without its final report.
func Interrupt(cmd *exec.Cmd) error { return instrument.KillTree(cmd) }
