//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package engine

import "time"

// processCPUTime reports no CPU time where the system gives none to the standard library.
func processCPUTime() (time.Duration, bool) { return 0, false }
