package report

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// Part is what one worker process of a test (or one shard's run of it) came to.
type Part struct {
	Part  strategy.Part
	Event *explore.Event // its result, nil when it ended without one
	Last  *explore.Event // its latest progress event
	Err   error
}

// CombineParts makes one result of the worker processes' results. A worker stopped because
// another found the bug counts the schedules of its last progress report.
func CombineParts(results []*Part, interrupted bool) (*explore.Event, error) {
	var bugPart *Part
	var errs []string
	for _, r := range results {
		switch {
		case r.Event != nil && r.Event.Bug != nil:
			// The earliest bug: in a lockstep search (PERIOD) the parts number their
			// executions as the whole run does, and its first bug is the whole run's.
			if bugPart == nil || r.Event.FirstBug < bugPart.Event.FirstBug {
				bugPart = r
			}
		case r.Err != nil && (bugPart == nil || !interrupted):
			errs = append(errs, fmt.Sprintf("worker %s: %v", r.Part, r.Err))
		case r.Event != nil && r.Event.Error != "":
			errs = append(errs, fmt.Sprintf("worker %s: %s", r.Part, r.Event.Error))
		}
	}
	if bugPart == nil && len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	c := &explore.Event{Event: "result"}
	if bugPart != nil {
		b := *bugPart.Event
		c.Bug, c.Report, c.Trace, c.FirstBug, c.Error = b.Bug, b.Report, b.Trace, b.FirstBug, b.Error
	}
	var exhausted []string
	allExhausted := true
	var points []string // the racy points the first part with a result ended on
	first, samePoints := true, true
	fingerprints := map[uint64]bool{}
	approximate := false // a worker stopped before its result: its interleavings are a count
	var notices []string
	abandoned := false                    // a part abandoned an execution, blocked outside the engine
	allPlateau, oneSchedule := true, true // every part stopped at its plateau; with one schedule
	for _, r := range results {
		e := r.Event
		if e == nil {
			// Stopped by the bug another worker found before it reported.
			allExhausted = false
			if r.Last != nil {
				c.Schedules += r.Last.Schedules
				c.Interleavings += r.Last.Interleavings
				approximate = true
			}
			continue
		}
		c.Test, c.Package, c.Strategy, c.Points = e.Test, e.Package, e.Strategy, e.Points
		c.Schedules += e.Schedules
		c.Buggy += e.Buggy
		// The parts' pairs are counts, not sets: their union has at least the most any
		// part covered.
		c.Coverage = max(c.Coverage, e.Coverage)
		if e.Interleavings > len(e.Fingerprints) {
			// More than the part listed (engine.MaxFingerprints): a count, not a set.
			c.Interleavings += e.Interleavings
			approximate = true
		} else {
			for _, fp := range e.Fingerprints {
				fingerprints[fp] = true
			}
		}
		c.Probes += e.Probes
		c.Elapsed = max(c.Elapsed, e.Elapsed)
		c.MaxGoroutines = max(c.MaxGoroutines, e.MaxGoroutines)
		c.MaxSteps = max(c.MaxSteps, e.MaxSteps)
		c.DetectionSchedules = max(c.DetectionSchedules, e.DetectionSchedules)
		c.PeakMemory = max(c.PeakMemory, e.PeakMemory)
		for _, l := range e.Limitations {
			if !slices.ContainsFunc(c.Limitations, func(x engine.Limitation) bool { return x.Message == l.Message }) {
				c.Limitations = append(c.Limitations, l)
			}
		}
		for _, n := range strings.Split(e.Notice, "\n") {
			if n != "" && !slices.Contains(notices, n) {
				notices = append(notices, n)
			}
		}
		if e.Stopped == "skipped" {
			c.Stopped = "skipped"
		}
		c.Cut += e.Cut
		if e.Stopped == "limitation" {
			abandoned = true
		}
		if e.Stopped == "plateau" {
			c.Plateau = max(c.Plateau, e.Plateau)
			c.PlateauFloor = max(c.PlateauFloor, e.PlateauFloor)
			c.DrewData = c.DrewData || e.DrewData
			oneSchedule = oneSchedule && e.OneSchedule
		} else {
			allPlateau = false
		}
		if first {
			points, first = e.RacyPoints, false
		} else if !slices.Equal(points, e.RacyPoints) {
			samePoints = false
		}
		if e.Stopped == "exhausted" {
			exhausted = append(exhausted, e.Exhausted)
		} else {
			allExhausted = false
		}
	}
	// The same interleaving reached by two workers is one; the union's fingerprints go on
	// (to interleave merge) when they are the whole set.
	if approximate {
		c.Interleavings += len(fingerprints)
	} else {
		c.Interleavings = len(fingerprints)
		c.Fingerprints = slices.Sorted(maps.Keys(fingerprints))
	}
	c.Notice = strings.Join(notices, "\n")
	if bugPart != nil && c.Buggy > 1 {
		// The report's count of buggy schedules is the test's, not its part's.
		c.Report = buggyOf.ReplaceAllString(c.Report, fmt.Sprintf("${1} (%d buggy of %d)", c.Buggy, c.Schedules))
	}
	switch {
	case c.Stopped == "skipped":
	case bugPart != nil:
		c.Stopped = "bug"
	case abandoned:
		c.Stopped = "limitation"
	case allExhausted && !samePoints:
		// A race first seen in some parts made new scheduling points there: the parts
		// explored their shares of different trees, which do not add up to one.
		c.Stopped, c.Exhausted = "exhausted", "each part explored its share, but races first seen while exploring made different scheduling points in different parts, so the shares are of different schedule spaces: "+uniqueMessages(exhausted)
	case allExhausted:
		c.Stopped, c.Exhausted = "exhausted", combineExhausted(exhausted)
	case interrupted:
		c.Stopped = "canceled"
	case allPlateau && !first:
		c.Stopped, c.OneSchedule = "plateau", oneSchedule
	default:
		c.Stopped = results[0].Event.Stopped
		c.Plateau, c.PlateauFloor = 0, 0
	}
	c.Exhausted = explore.QualifyExhausted(c.Exhausted, c.Cut, false)
	return c, nil
}

// buggyOf is the first line of a bug's report (report.FormatFailure) up to its count of
// buggy schedules.
var buggyOf = regexp.MustCompile(`^(interleave: .* after \d+ schedule\(s\))( \(\d+ buggy of \d+\))?`)

// partExhausted is a systematic strategy's exhaustion message for a part (Systematic.Exhausted).
var partExhausted = regexp.MustCompile(`^all (\d+) schedules of part (\S+)( with ≤ (\d+) (\w+))? explored( \(the part's whole share of the schedule space\))?(.*)$`)

// uniqueMessages joins msgs with "; ", each once, in the order first given.
func uniqueMessages(msgs []string) string {
	var uniq []string
	for _, m := range msgs {
		if !slices.Contains(uniq, m) {
			uniq = append(uniq, m)
		}
	}
	return strings.Join(uniq, "; ")
}

// combineExhausted says what the parts of one test covered, together: the systematic
// strategies' counts summed, as the unpartitioned search would say them when the parts make
// the whole; other messages as they are, each once.
func combineExhausted(msgs []string) string {
	total, bound := 0, -1
	var unit, rest string
	whole, pruned := true, false
	var parts []string
	for _, m := range msgs {
		g := partExhausted.FindStringSubmatch(m)
		if g == nil {
			whole = false
			break
		}
		n, _ := strconv.Atoi(g[1])
		total += n
		parts = append(parts, g[2])
		if g[3] != "" {
			b, _ := strconv.Atoi(g[4])
			bound, unit = max(bound, b), g[5]
			// Without "(… whole share …)" a maximum bound cut the space: the bound is
			// that maximum, the same in every part.
			pruned = pruned || g[6] == ""
		}
		rest = g[7]
	}
	if !whole {
		return uniqueMessages(msgs)
	}
	of := ""
	if u := findings.UnionOfParts(parts); u != "" {
		of = " of part " + u
	}
	msg := fmt.Sprintf("all %d schedules%s", total, of)
	switch {
	case bound < 0:
		msg += " explored"
	case pruned:
		msg += fmt.Sprintf(" with ≤ %d %s explored", bound, unit)
	case of == "":
		msg += fmt.Sprintf(" with ≤ %d %s explored %s", bound, unit, engine.WholeScheduleSpace)
	default:
		msg += fmt.Sprintf(" with ≤ %d %s explored (the part's whole share of the schedule space)", bound, unit)
	}
	return msg + rest
}
