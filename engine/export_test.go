package engine

// OrphanCount reports how many goroutines of abandoned executions are still registered.
func OrphanCount() int32 { return orphanCount.Load() }

// StandardLibrary exposes standardLibrary to the tests.
var StandardLibrary = standardLibrary
