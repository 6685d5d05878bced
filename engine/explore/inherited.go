package explore

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// inheritedPrefix names a file the process inherited by its descriptor (its handle on
// Windows, which has no /dev/fd): "fd:N". The interleave command passes the event stream and
// the lockstep file so on Windows; on Unix it names them /dev/fd/N.
const inheritedPrefix = "fd:"

// OpenStream opens the stream the interleave command named in an INTERLEAVE_* variable: an
// inherited descriptor or handle ("fd:N"), else a path, opened with flag (and created, with
// mode 0644, if flag says so).
func OpenStream(name string, flag int) (*os.File, error) {
	if n, ok := strings.CutPrefix(name, inheritedPrefix); ok {
		fd, err := strconv.ParseUint(n, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("open %s: not a descriptor: %w", name, err)
		}
		f := os.NewFile(uintptr(fd), name)
		if f == nil {
			return nil, fmt.Errorf("open %s: invalid descriptor", name)
		}
		return f, nil
	}
	return os.OpenFile(name, flag, 0o644)
}
