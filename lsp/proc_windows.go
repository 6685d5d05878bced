package lsp

import (
	"os/exec"

	"github.com/interleave-dev/interleave/engine/instrument"
)

// interruptTree has canceling cmd's context end its whole process tree. Windows cannot send
// an interrupt to a process without a console of its own, so a canceled run ends at once
// (what it saved before stays in the store; its final summary is lost).
func interruptTree(cmd *exec.Cmd) {
	cmd.Cancel = func() error { return instrument.KillTree(cmd) }
}

// processGone reports whether the process pid no longer exists (or has exited).
func processGone(pid int) bool { return !instrument.ProcessAlive(pid) }
