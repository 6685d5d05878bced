//go:build !unix

package merge

import "errors"

// mkfifo makes a FIFO at path: there are none on this system.
func mkfifo(path string) error { return errors.New("no FIFOs on this system") }
