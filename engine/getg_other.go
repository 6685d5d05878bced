//go:build !amd64 && !arm64

package engine

// getg has no cheap implementation on this architecture: every goroutine looks the same, and
// the engine trusts that only the goroutine it scheduled calls into it.
func getg() uintptr { return 0 }

const goroutineIdentity = false
