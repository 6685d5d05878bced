//go:build !unix && !windows

package instrument

import "os/exec"

// dieWithParent leaves the child as exec.CommandContext makes it.
func dieWithParent(*exec.Cmd) {}

// processAlive reports whether a process exists; without a way to ask, it says yes, so that
// nothing is removed.
func processAlive(int) bool { return true }

// killTree kills cmd's process only: there is no group to kill with it.
func killTree(cmd *exec.Cmd) error { return cmd.Process.Kill() }
