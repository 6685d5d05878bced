package explore

// Saved schedules replay first: before a test is explored, every schedule saved for it — the
// committed corpus in testdata/interleave/<Test>/ of its package (as go test's
// testdata/fuzz/<Fuzz>/), then the results store's — is replayed. One that still fails is the
// bug, reported at once; one that passes counts as fixed; one that diverges because the
// program changed is counted apart, with what changed.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/srcmap"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// CorpusDir is the directory, in a package's directory, of the schedules committed for its
// tests: CorpusDir/<TestName>/*.json, TestName with every character but letters, digits, '.',
// '_' and '-' replaced by '_' ("TestA/sub" is TestA_sub).
const CorpusDir = "testdata/interleave"

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// CorpusName is the directory name in CorpusDir of the test's schedules.
func CorpusName(test string) string { return unsafeName.ReplaceAllString(test, "_") }

// savedCounts are the outcomes of a test's saved schedules.
type savedCounts struct {
	Replayed, Failing, Diverged int
	// Notes explain the diverged ones (and the files that could not be read).
	Notes []string
	// Outcomes are the replayed schedules' outcomes, one each.
	Outcomes []SavedOutcome
}

// SavedOutcome is what the replay of one saved schedule gave: Outcome is "fails" (the bug is
// still there), "fixed" (the schedule ran to its end without it) or "diverged" (the program
// changed and no longer follows it; Detail says where).
type SavedOutcome struct {
	Schedule string `json:"Schedule"`
	Outcome  string `json:"Outcome"`
	Detail   string `json:"Detail,omitempty"`
}

// savedBug is a saved schedule that still fails.
type savedBug struct {
	report *Report
	// path is the saved file when the replay reproduced it exactly; empty when the
	// execution went past it (file is then the execution's schedule, to be saved).
	path string
	file *schedule.File
}

// savedSchedules lists the schedules saved for the test: the committed corpus of the
// package directory dir first, then the results store's (in storeDir, or the module's), each
// in name order (a store's names end with the time they were saved).
func savedSchedules(test, dir, storeDir, root string) []string {
	var out []string
	corpus, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(CorpusDir), CorpusName(test), "*.json"))
	sort.Strings(corpus)
	out = append(out, corpus...)
	if storeDir == "" && root != "" {
		storeDir = filepath.Join(root, filepath.FromSlash(findings.SchedulesDir))
	}
	if storeDir != "" {
		// SaveSchedule's names: <test>-<kind>-<time>[-n].json.
		local, _ := filepath.Glob(filepath.Join(storeDir, CorpusName(test)+"-*.json"))
		sort.Strings(local)
		for _, p := range local {
			if strings.HasSuffix(p, ".found.json") {
				continue // the schedule as found, beside its minimized one
			}
			out = append(out, p)
		}
	}
	return out
}

// replaySaved replays the test's saved schedules, stopping at the first that still fails.
// Only the first part of a partitioned exploration replays them. INTERLEAVE_SAVED=0 turns it
// off.
func replaySaved(body func(*T), o *options, info schedule.Test, name string) (*savedCounts, *savedBug) {
	if os.Getenv("INTERLEAVE_SAVED") == "0" || !o.part.First() {
		return nil, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return nil, nil
	}
	c := &savedCounts{}
	for _, path := range savedSchedules(name, dir, o.dir, o.config.Root) {
		f, err := schedule.Load(path)
		if err == nil {
			relativeBug(f, o.config.Root)
			err = f.Check(info)
		}
		switch {
		case errors.Is(err, schedule.ErrOtherTest):
			continue // a test whose name shares the prefix
		case errors.Is(err, schedule.ErrOtherBuild):
		case err != nil:
			c.Notes = append(c.Notes, fmt.Sprintf("saved schedule not replayed: %v", err))
			continue
		}
		if f.Bug == nil {
			continue // a passing execution kept by hand: nothing to guard
		}
		if f.Bug.Kind == string(engine.Race) && !o.config.RacesFail {
			continue // a race is a finding, not a failure, in this run (-races=report or off)
		}
		if f.Bug.Delayed != "" && o.config.Sleeps != engine.SleepsFail {
			continue // a bug that needs a delay past a sleep is a notice, or not explored, in this run
		}
		c.Replayed++
		rf, m := srcmap.Relocate(f, o.config.Root)
		cfg := o.config
		cfg.OnExecution, cfg.Strategy = nil, nil
		cfg.Record = true
		cfg.Races, cfg.RacesFail = false, false
		cfg.UseFile(rf) // validated by Load
		if lim := engine.ReplayMaxSteps(rf); lim > 0 {
			cfg.MaxSteps = lim
		}
		// Past the schedule's end (the fix let the goroutines go on), the execution ends
		// under a random walk with a fixed seed.
		then, _ := strategy.New("random", nil, 1)
		rs := strategy.NewReplayFile(rf, strategy.ReplayThen(then))
		r := engine.Run(body, rs, cfg)
		switch {
		case r.Err != nil || r.Limitation != nil:
			c.Diverged++
			why := divergence(r, m, f, m.SourceChanged() || errors.Is(err, schedule.ErrOtherBuild))
			c.Notes = append(c.Notes, fmt.Sprintf("saved schedule %s: %s", path, why))
			c.Outcomes = append(c.Outcomes, SavedOutcome{Schedule: path, Outcome: "diverged", Detail: why})
		case r.Bug == nil:
			c.Outcomes = append(c.Outcomes, SavedOutcome{Schedule: path, Outcome: "fixed", Detail: fmt.Sprintf("replayed clean: the %s no longer happens under it", f.Bug.Kind)})
		default:
			c.Failing++
			c.Outcomes = append(c.Outcomes, SavedOutcome{Schedule: path, Outcome: "fails", Detail: fmt.Sprintf("%s at %s", r.Bug.Kind, r.Bug.Pos)})
			// The run's strategy, not "replay": the findings document describes the run, and
			// the documents of its worker processes (the first replays the saved schedules,
			// the others explore) merge only when they agree on it.
			name := "replay"
			if o.config.Strategy != nil {
				name = o.config.Strategy.Name()
			}
			b := &savedBug{report: &Report{Strategy: name, Schedules: 1, Buggy: 1, First: r, FirstAt: 1, Stopped: "bug"}}
			if rs.Replayed() == len(rf.Steps) && r.Steps == rf.Result.Steps && engine.CheckReproduced(rf, r) == nil {
				b.path = path
			} else {
				b.file = engine.NewScheduleFile(r, info, rs, 1)
				b.file.Points = cfg.Points.String()
			}
			return c, b
		}
	}
	if c.Replayed == 0 && len(c.Notes) == 0 {
		return nil, nil
	}
	return c, nil
}

// divergence explains why the replay r of the schedule f, relocated by m, did not follow it.
func divergence(r *engine.Result, m *srcmap.Map, f *schedule.File, changed bool) string {
	if r.Limitation != nil {
		return "abandoned: " + r.Limitation.Message
	}
	var d *strategy.DivergenceError
	if !errors.As(r.Err, &d) {
		return r.Err.Error()
	}
	if changed {
		return sourceChanged(d, m)
	}
	return fmt.Sprintf("%v: the test did something else under the same schedule, with the same source: it depends on something the scheduler does not control", d)
}

// sourceChanged says where the replay of a schedule whose source changed since it was saved
// left it: "the source changed since the schedule was saved: at step 4 G1 now runs lock at
// x.go:14, where the schedule runs G1 (unlock at x.go:13)", and which of its lines are gone.
func sourceChanged(d *strategy.DivergenceError, m *srcmap.Map) string {
	want := strings.TrimPrefix(d.Want, "the schedule runs ")
	msg := fmt.Sprintf("the source changed since the schedule was saved: at step %d %s, where the schedule had %s", d.Step, d.Now, want)
	if gone := m.Describe(); gone != "" {
		msg += "; lines of the schedule changed or removed since: " + gone
	}
	return msg
}

// savedLine describes the outcomes of a test's saved schedules in one line: "saved
// schedules: 3 replayed, 1 still fails, 1 fixed, 1 diverged (the program changed)".
func (c *savedCounts) line() string {
	fixed := c.Replayed - c.Failing - c.Diverged
	return fmt.Sprintf("saved schedules: %d replayed, %d still fail, %d fixed (replayed clean), %d diverged (the program changed)", c.Replayed, c.Failing, fixed, c.Diverged)
}
