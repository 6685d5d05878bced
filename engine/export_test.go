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

// LockCycleWalksAgree reports, for every goroutine of d's execution, whether the walk that
// runs at each blocking Lock (reachesLockCycle) and the one that builds the cycle
// (lockCycleFrom) agree: it returns the first goroutine where they differ (NoGoroutine when
// none does), and whether the walk from some goroutine reached a cycle.
func (d *Decision) LockCycleWalksAgree() (differ GID, cycle bool) {
	for _, g := range d.e.gs {
		found := d.e.lockCycleFrom(g) != nil
		if d.e.reachesLockCycle(g) != found {
			return g.id, found
		}
		cycle = cycle || found
	}
	return NoGoroutine, cycle
}
