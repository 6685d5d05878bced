package engine

// OrphanCount reports how many goroutines of abandoned executions are still registered.
func OrphanCount() int32 { return orphanCount.Load() }

// StandardLibrary exposes standardLibrary to the tests.
var StandardLibrary = standardLibrary

// SetShadowWeak makes the race detectors made from now on start in weak mode (raceshadow.go), or
// pin again; it returns the previous setting.
func SetShadowWeak(weak bool) bool { return shadowStartWeak.Swap(weak) }

// ShadowWeakMade returns how many weak pointers the shadows have made so far.
func ShadowWeakMade() int { return int(shadowWeakMade.Load()) }

// SetGroupFlips turns notify's word-at-a-time flips of a uniform queue's waiters (flipGroup)
// on or off; it returns the previous setting.
func SetGroupFlips(on bool) bool {
	was := groupFlips
	groupFlips = on
	return was
}
