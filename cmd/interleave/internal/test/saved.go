package test

import (
	"fmt"

	"github.com/interleave-dev/interleave/engine/explore"
)

// saved prints, under a test's result, what its saved schedules (its committed corpus and
// the results store's, replayed before it was explored) gave, when it had any: one line.
func (o *output) saved(e *explore.Event) {
	if e.SavedReplayed == 0 {
		return
	}
	fixed := e.SavedReplayed - e.SavedFailing - e.SavedDiverged
	fmt.Fprintf(o.stdout, "    saved schedules: %d replayed: %d still fail, %d fixed (replayed clean), %d diverged (the program changed)\n",
		e.SavedReplayed, e.SavedFailing, fixed, e.SavedDiverged)
}

// addSaved adds to the combined result of a test's parts the outcomes of its saved
// schedules, which the first part replayed.
func addSaved(res *explore.Event, results []*partResult) {
	for _, r := range results {
		if e := r.Event; e != nil {
			res.SavedReplayed += e.SavedReplayed
			res.SavedFailing += e.SavedFailing
			res.SavedDiverged += e.SavedDiverged
			res.SavedSchedules = append(res.SavedSchedules, e.SavedSchedules...)
		}
	}
}

// savedEnv is the variable that turns the replay of saved schedules off (-saved=false) or on.
func savedEnv(off bool) string {
	if off {
		return "INTERLEAVE_SAVED=0"
	}
	return "INTERLEAVE_SAVED=1"
}
