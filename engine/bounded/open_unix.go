//go:build unix

package bounded

import (
	"os"
	"syscall"
)

// openNonblocking opens path for reading with O_NONBLOCK: opening a FIFO for reading
// otherwise waits for a writer, possibly for ever. A regular file's reads ignore the flag.
func openNonblocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
