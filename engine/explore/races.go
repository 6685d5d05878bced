package explore

import (
	"fmt"
	"os"
	"sort"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/store"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// detectRaces is the race-detection phase of mode "racy" (seed 004, §5): it runs the test
// o.raceRuns times with the detector on and only synchronization as scheduling points, under
// the random walk with the exploration's seed, and returns its report. Its bugs are not
// reported: the exploration that follows, with the racy accesses as scheduling points, finds
// them again with schedules that replay.
func detectRaces(body func(*T), o *options) (*Report, error) {
	s, err := strategy.New("random", nil, o.seed)
	if err != nil {
		return nil, err
	}
	cfg := o.config
	cfg.Strategy = s
	cfg.Points = engine.PointsSync
	cfg.Races, cfg.RacesFail = true, false
	cfg.Schedules = o.raceRuns
	if cfg.Schedules <= 0 {
		cfg.Schedules = DefaultRaceRuns
	}
	cfg.KeepGoing = true
	cfg.OnExecution = nil
	// A time budget is the test's: the detection phase takes at most a quarter of it, so
	// that a test whose executions are long still has most of it to explore.
	cfg.Time /= 4
	rep := engine.Explore(body, cfg)
	if rep.Err != nil {
		return rep, fmt.Errorf("race-detection phase: %w", rep.Err)
	}
	return rep, nil
}

// racyPositions lists the positions of the accesses of races, sorted.
func racyPositions(races []engine.DataRace) []engine.Pos {
	set := make(map[engine.Pos]bool)
	for _, r := range races {
		set[r.A.Pos], set[r.B.Pos] = true, true
	}
	out := make([]engine.Pos, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// mergeDetected adds the races of the detection phase to the exploration's report: a race
// only the detection phase saw keeps first schedule 0.
//
// Every part of a partitioned exploration runs the same detection phase; only the first part
// counts its sightings (count), so that the parts' documents merged count them once, as the
// whole run does. The others list the races it saw, seen in no schedule of theirs.
func mergeDetected(rep, detect *Report, count bool) {
	if detect == nil {
		return
	}
	index := make(map[string]int, len(rep.Races))
	for i := range rep.Races {
		index[rep.Races[i].Key()] = i
	}
	for _, r := range detect.Races {
		if !count {
			r.Schedules = 0
		}
		if i, ok := index[r.Key()]; ok {
			rep.Races[i].Schedules += r.Schedules
			continue
		}
		r.Schedule = 0
		rep.Races = append(rep.Races, r)
	}
}

// saveFindings writes the test's findings document to the results store of the module of the
// working directory (go test runs a test in its package's directory) and returns its path.
func saveFindings(o *options, info schedule.Test, rep *Report, detect *Report, bugPath string) (string, error) {
	root, err := store.WorkingModule()
	if err != nil {
		return "", fmt.Errorf("save findings: %w", err)
	}
	f := store.Findings(root, info, rep, bugPath)
	f.Params, f.Seed, f.Budget, f.Part, f.Points = o.params, o.seed, o.budget, o.part.String(), o.config.Points.String()
	if o.config.Points == engine.PointsRacy {
		f.RacyPoints = rep.RacyPoints // with those that races first seen while exploring added
	}
	if detect != nil {
		f.DetectionSchedules = detect.Schedules
	}
	if dir := os.Getenv("INTERLEAVE_FINDINGS_DIR"); dir != "" {
		// A part of a test explored by several processes: the interleave command merges the
		// parts' documents into the store (findings.Merge).
		err = f.SaveIn(dir)
	} else {
		err = f.Save(root)
	}
	if err != nil {
		return "", err
	}
	return f.Path, nil
}
