package engine

import "slices"

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

// SetPregrowing turns stackSite's growing of the stacks of the goroutines of a go statement
// as they start on or off; it returns the previous setting.
func SetPregrowing(on bool) bool {
	was := pregrowing
	pregrowing = on
	return was
}

// LockCycleWalksAgree reports, for every goroutine of d's execution, whether the lock cycle
// the engine finds from it (lockCycleFrom, by Floyd's walkers) is the one a plain walk that
// keeps its path finds — the same goroutines in the same order, or none: it returns the first
// goroutine where they differ (NoGoroutine when none does), and whether the walk from some
// goroutine reached a cycle.
func (d *Decision) LockCycleWalksAgree() (differ GID, cycle bool) {
	for _, g := range d.e.gs {
		want := d.e.lockCycleByPath(g)
		if got := d.e.lockCycleFrom(g); !slices.Equal(got, want) || (d.e.lockCycleEntry(g) == nil) != (want == nil) {
			return g.id, want != nil
		}
		cycle = cycle || want != nil
	}
	return NoGoroutine, cycle
}

// lockCycleByPath is the reference of lockCycleFrom: it follows the waits from start,
// keeping the path, until a goroutine repeats (the cycle is the path from there) or the chain
// ends.
func (e *Exec) lockCycleByPath(start *goroutine) []*goroutine {
	var path []*goroutine
	for g := start; g != nil && len(path) <= len(e.gs); g = e.lockHolder(g) {
		if i := slices.Index(path, g); i >= 0 {
			return path[i:]
		}
		path = append(path, g)
	}
	return nil
}

// StarvationAgrees reports, at a decision where the fairness rule looked for a starving
// goroutine (every 64th step), whether what the decision offers is what a pass over every
// enabled goroutine finds (the rule without its floor, fair.go): the one that has waited
// longest alone when it waited for the bound, all of them otherwise. checked is false at the
// other decisions.
func (d *Decision) StarvationAgrees() (checked, starved, agrees bool) {
	e := d.e
	if e.fairSteps <= 0 || e.steps&starveCheck != 0 || e.nEnabled <= 1 {
		return false, false, true
	}
	oldest, oldestSince := NoGoroutine, 0
	for _, id := range e.en.appendTo(nil) {
		if s := e.sinceOf(id); oldest == NoGoroutine || s < oldestSince {
			oldest, oldestSince = id, s
		}
	}
	starved = e.steps-oldestSince >= starveFactor*e.fairSteps
	if starved {
		return true, true, len(d.list) == 1 && d.list[0] == oldest
	}
	return true, false, d.list == nil
}

// UniformCountsAgree reports whether every uniform queue a goroutine waits in counts as
// enabled (waitq.nOn) the members the enabled set holds.
func (d *Decision) UniformCountsAgree() bool {
	e := d.e
	for _, g := range e.gs {
		q := g.uq
		if q == nil {
			continue
		}
		n := 0
		for _, id := range q.ids {
			if e.en.has(id) {
				n++
			}
		}
		if n != q.nOn {
			return false
		}
	}
	return true
}

// SetWatchdogSawChild makes f called each time the watchdog finds a stalled execution's
// goroutine waiting for a child process (nil: nothing is called).
func SetWatchdogSawChild(f func()) {
	if f == nil {
		watchdogSawChild.Store(nil)
		return
	}
	watchdogSawChild.Store(&f)
}
