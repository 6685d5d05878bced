//go:build !unix

package bounded

import "os"

// openNonblocking opens path for reading. These systems have no FIFOs in the file system
// that an open waits on.
func openNonblocking(path string) (*os.File, error) {
	return os.Open(path)
}
