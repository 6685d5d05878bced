//go:build amd64 || arm64

package engine

// getg returns the address of the runtime's descriptor of the calling goroutine. It is stable
// for the goroutine's lifetime and unique among live goroutines, which is all the engine needs
// to tell its controlled goroutines from others that call into instrumented code.
func getg() uintptr

// goroutineIdentity reports whether getg identifies goroutines on this architecture.
const goroutineIdentity = true
