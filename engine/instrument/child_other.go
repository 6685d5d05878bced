//go:build !unix

package instrument

import "os/exec"

// dieWithParent leaves the child as exec.CommandContext makes it.
func dieWithParent(*exec.Cmd) {}

// processAlive reports whether a process exists; without a way to ask, it says yes, so that
// nothing is removed.
func processAlive(int) bool { return true }
