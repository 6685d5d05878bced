package explore

import (
	"bytes"
	"os"
	"strconv"
)

// peakMemory is the process's peak resident memory in bytes: VmHWM of /proc/self/status, which
// counts this program only (a child's rusage also counts its parent's memory at the fork, so
// the command that runs the test binary cannot measure it). 0 where there is no such file.
func peakMemory() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	// No range over bytes.Lines: the runtime packages are built at the module's language
	// version, which may be older than range over functions.
	for _, line := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			f := bytes.Fields(v)
			if len(f) == 2 && string(f[1]) == "kB" {
				if kb, err := strconv.ParseInt(string(f[0]), 10, 64); err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}
