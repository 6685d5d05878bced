package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/interleave-dev/interleave/engine/schedule"
)

// TestInfo identifies what was tested, for schedule files: the module, the package, the test's
// name (with subtests) and an identity of the test binary supplied by the caller (a hash or a
// build ID; empty when unknown), so that a file recorded by another build can be detected.
type TestInfo = schedule.Test

// NewScheduleFile describes execution number execution (from 1; 0 if unknown) of the test
// info, with result r, as a schedule file. s is the strategy that ran it (nil if unknown); its
// Params must still be those of that execution, so call NewScheduleFile before the strategy's
// next Begin (in Config.OnExecution, or after Explore stopped at the first bug). The file's
// steps are r.Schedule, which the engine records for executions with a bug, and for every
// execution with Config.Record or Run.
func NewScheduleFile(r *Result, info TestInfo, s Strategy, execution int) *schedule.File {
	f := &schedule.File{
		Test:      info,
		Execution: execution,
		Result: schedule.Summary{
			Steps:       r.Steps,
			Goroutines:  r.Goroutines,
			Preemptions: r.Preemptions,
			Fingerprint: r.Fingerprint,
		},
		Steps: append([]schedule.Step(nil), r.Schedule...),
	}
	if s != nil {
		f.Strategy = schedule.Strategy{Name: s.Name(), Params: maps.Clone(s.Params())}
		if len(f.Strategy.Params) == 0 {
			f.Strategy.Params = nil
		}
	}
	if r.Bug != nil {
		f.Bug = fileBug(r.Bug)
	}
	f.DataSeed = r.DataSeed
	f.SleepDelays, f.SleepDelayMax = r.SleepDelays, r.SleepDelayMax
	switch r.FairSteps {
	case DefaultFairSteps:
	case 0:
		f.FairSteps = -1
	default:
		f.FairSteps = r.FairSteps
	}
	f.Instrument, f.BuildFlags = recordedBuild()
	if r.RacyPoints != nil {
		// The points of this execution: the racy accesses may have grown during the
		// exploration (Explore), and the schedule replays only with the same ones.
		f.Points, f.RacyPoints = PointsRacy.String(), r.RacyPoints
	}
	return f
}

// recordedBuild returns how the test binary was built, as the interleave command that built
// it says in its environment (instrument.Package.BuildEnv): the modules instrumented on
// request and the build flags that change what it does; nil for a binary built otherwise.
func recordedBuild() (instrument, flags []string) {
	if m := os.Getenv("INTERLEAVE_INSTRUMENT"); m != "" {
		instrument = strings.Split(m, ",")
	}
	if f := os.Getenv("INTERLEAVE_BUILD_FLAGS"); f != "" {
		json.Unmarshal([]byte(f), &flags) // a malformed value records nothing
	}
	return instrument, flags
}

// fileBug converts a bug to its plain-data form.
func fileBug(b *Bug) *schedule.Bug {
	out := &schedule.Bug{
		Kind:    string(b.Kind),
		Message: b.Message,
		Step:    b.Step,
		G:       int32(b.G),
		Pos:     b.Pos,
		Delayed: b.Delayed,
	}
	if len(b.Logs) > 0 {
		out.Logs = append([]string(nil), b.Logs...)
	}
	for _, g := range b.Goroutines {
		sg := schedule.Goroutine{
			ID:      int32(g.ID),
			Parent:  int32(g.Parent),
			Status:  g.Status,
			Created: g.Created,
		}
		if g.Pending.Kind != OpNone {
			sg.Op = g.Pending.Kind.String()
		}
		sg.Pos = g.Pending.Pos
		for _, fr := range g.Stack {
			sg.Stack = append(sg.Stack, schedule.Frame{Func: fr.Func, File: fr.File, Line: fr.Line})
		}
		out.Goroutines = append(out.Goroutines, sg)
	}
	return out
}

// CheckReproduced reports whether r, the result of replaying f, reproduces f's outcome: the
// replay did not diverge, and it has the same bug (kind, step, goroutine and position) or,
// when f has none, no bug either. The error says what differs. The message is not compared:
// it may hold what differs from one process to another (an assertion library's stack trace
// through the engine's frames, an address, a duration) while the bug is the same.
func CheckReproduced(f *schedule.File, r *Result) error {
	if r.Err != nil {
		return fmt.Errorf("replay of %s: %w", fileLabel(f), r.Err)
	}
	if r.Limitation != nil {
		return fmt.Errorf("replay of %s was abandoned: %s", fileLabel(f), r.Limitation.Message)
	}
	want, got := f.Bug, r.Bug
	switch {
	case want == nil && got == nil:
		return nil
	case want == nil:
		return fmt.Errorf("replay of %s: the schedule passed, but the replay found %v", fileLabel(f), got)
	case got == nil:
		return fmt.Errorf("replay of %s did not reproduce the bug: the schedule has %s, the replay passed", fileLabel(f), describeFileBug(want))
	}
	var diffs []string
	if string(got.Kind) != want.Kind {
		diffs = append(diffs, fmt.Sprintf("kind %s, not %s", got.Kind, want.Kind))
	}
	if got.Step != want.Step {
		diffs = append(diffs, fmt.Sprintf("step %d, not %d", got.Step, want.Step))
	}
	if int32(got.G) != want.G {
		diffs = append(diffs, fmt.Sprintf("goroutine %v, not %v", got.G, GID(want.G)))
	}
	if !samePosition(got.Pos, want.Pos) {
		diffs = append(diffs, fmt.Sprintf("position %s, not %s", got.Pos, want.Pos))
	}
	if len(diffs) > 0 {
		return fmt.Errorf("replay of %s found another bug: %s", fileLabel(f), strings.Join(diffs, "; "))
	}
	return nil
}

// samePosition reports whether two positions of a bug name the same line: equal, or one
// relative to a module's root and the other the absolute path of a file that ends with it. A
// bug in a test of an instrumented module in the module cache has its position from the
// panic's stack, in the module cache, which the exploring process, running in the module's
// copy, cannot make relative to its root, and the replaying one can.
func samePosition(a, b string) bool {
	if a == b {
		return true
	}
	if filepath.IsAbs(a) == filepath.IsAbs(b) {
		return false
	}
	if filepath.IsAbs(b) {
		a, b = b, a
	}
	return strings.HasSuffix(filepath.ToSlash(a), "/"+b)
}

func fileLabel(f *schedule.File) string {
	if f.Path != "" {
		return f.Path
	}
	return "the schedule of " + f.Test.String()
}

func describeFileBug(b *schedule.Bug) string {
	return fmt.Sprintf("%s at step %d in %v (%s): %s", b.Kind, b.Step, GID(b.G), b.Pos, b.Message)
}

// ReplayMaxSteps is the Config.MaxSteps to replay f with. A livelock is the step bound being
// reached, and so may be a leak (goroutines still running after the test, at the bound, with
// Config.StrictLeaks): their replay needs the bound of the recording, which is the bug's step.
// A leak found before the bound ends its execution at the bug's step too (no goroutine was
// left to run), so that bound changes nothing for it. Any other schedule bounds its replay
// itself (the replay stops when the execution goes past the schedule), so the result is -1,
// no bound. A replay that continues with another strategy after the schedule should choose
// its own bound.
func ReplayMaxSteps(f *schedule.File) int {
	if f.Bug != nil && (BugKind(f.Bug.Kind) == Livelock || BugKind(f.Bug.Kind) == Leak) {
		return max(f.Bug.Step, 1)
	}
	return -1
}
