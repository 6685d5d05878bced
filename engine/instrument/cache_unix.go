//go:build unix

package instrument

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkOwner refuses a file that another user owns.
func checkOwner(fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Getuid(); int(st.Uid) != uid {
		return fmt.Errorf("owned by user %d, not by this user (%d): refusing to build code from it", st.Uid, uid)
	}
	return nil
}
