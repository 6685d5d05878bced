package engine

// randSource is the per-execution source of math/rand's top-level functions; see the
// instrumenter's rewrite of math/rand calls.
type randSource struct{}
