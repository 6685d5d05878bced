// Package report holds what interleave test and interleave merge both write about a run: the
// outcome of each test, the run's summary in the results store (.interleave/runs), the
// results of a test's worker processes combined into one, and the JUnit XML and SARIF 2.1.0
// reports of the run.
package report

import "github.com/interleave-dev/interleave/engine/explore"

// Outcome is what one test's run came to.
type Outcome struct {
	Package string
	Test    string
	Result  *explore.Event
	Err     string
	// Interrupted is set when a signal stopped the run before the test was explored to
	// its end (or at all): Err says so, Result has what was explored before.
	Interrupted bool `json:",omitempty"`
}

// Config is what the reports say of how the run explored: interleave test's flags, or the
// merged run's.
type Config struct {
	Strategy  string
	Params    map[string]string
	Seed      uint64
	Schedules int
	Points    string // the scheduling-points mode (-points)
	Races     string // report, fail or off (-races)
	// Interrupted is the signal that interrupted the run ("interrupt", "terminated"), ""
	// for a run that went to its end.
	Interrupted string
}
