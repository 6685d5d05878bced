package engine

import "time"

// testing/synctest under control. An execution is already what a synctest bubble is: its
// goroutines run on a virtual clock that jumps when every goroutine is blocked. synctest.Test(t,
// f) therefore calls f with the execution's test handle on the calling goroutine (its
// goroutines left blocked are the leak the engine reports when the test returns), with the
// clock reading midnight UTC on 2000-01-01 as the bubble starts, as Go's does, and back on the
// execution's own timeline when it ends; synctest.Wait blocks until every other goroutine of
// the execution is blocked.

// SynctestTest is synctest.Test(t, f), for the test's *testing.T (an instrumented test's) or
// the engine's T. Inside the bubble time does not pass while goroutines
// run (clock.stand), as in Go's: a test that sleeps exactly as long as a timer it armed sees
// both fire at the same instant.
func SynctestTest[H any](t H, f func(H), pos Pos) {
	if e, g := current(pos); g != nil {
		e.clock.stand(true)
		origin := e.clock.origin
		e.clock.origin = synctestEpoch.Add(-time.Duration(e.clock.now))
		defer func() {
			e.clock.stand(false)
			e.clock.origin = origin
		}()
	}
	f(t)
}

// synctestWaiter is the blocker of a goroutine in synctest.Wait: it can go on once no other
// goroutine can run.
type synctestWaiter struct{}

func (synctestWaiter) ready(g *goroutine) bool {
	e := g.e
	return e.nEnabled == 0 || e.nEnabled == 1 && e.en.has(g.id)
}

// SynctestWait is synctest.Wait(): it returns once every other goroutine is blocked (re-checked
// at every decision, as it depends on them all).
func SynctestWait(pos Pos) {
	e, g := current(pos)
	if g == nil {
		panic("synctest.Wait called from outside a synctest bubble")
	}
	e.pointPoll(g, OpYield, 0, pos, synctestWaiter{})
	// Every other goroutine is now durably blocked, in its operation and not only at it: a
	// select with a default that finds one of them as its partner takes the case, as Go's
	// does after Wait (select.go).
	e.parkEpoch++
	for _, o := range e.gs {
		if o != g && !o.done && !e.en.has(o.id) {
			o.parkedEpoch, o.parkedSince = e.parkEpoch, e.sinceOf(o.id)
		}
	}
}

// parked reports whether g is durably blocked in its operation, not merely arriving at it:
// synctest.Wait found it so and it has not moved since, or the clock jumped while it was
// blocked — every goroutine was blocked then, and time passed: in Go it has parked.
func (g *goroutine) parked() bool {
	e := g.e
	if e.en.has(g.id) || g.done {
		return false
	}
	return e.clock.jumps > e.jumps[g.id] || (e.parkEpoch > 0 && g.parkedEpoch == e.parkEpoch && g.parkedSince == e.sinceOf(g.id))
}
