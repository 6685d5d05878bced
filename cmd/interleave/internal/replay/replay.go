// Package replay is interleave replay: it re-runs a schedule file — of a bundled demo program
// in process, of an ordinary test in its package's instrumented test binary — and prints its
// trace step by step, with the bug at the end. A schedule recorded by other code is replayed
// with its positions found again in the current source (package srcmap), up to the first
// divergence, which says where the source changed.
package replay

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/base"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/demo"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/test"
	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/instrument"
	"github.com/interleave-dev/interleave/engine/report"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/store"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// Run runs interleave replay: it re-runs a schedule file and prints its trace step by step,
// with the bug at the end.
func Run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	until := fs.Int("until", 0, "stop after step `N` (0: run to the end)")
	strict := fs.Bool("strict", false, "refuse a schedule recorded by other code (by default it is replayed up to the first divergence)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: want one schedule file", base.ErrUsage)
	}
	if *until < 0 {
		return fmt.Errorf("%w: -until %d: want a step number ≥ 0 (0: run to the end)", base.ErrUsage, *until)
	}
	path := fs.Arg(0)
	f, err := schedule.Load(path)
	if err != nil {
		return err
	}
	if f.Test.Package != demo.Package {
		return replayTest(path, f, *until, *strict, stdout, stderr)
	}
	prog, ok := demo.Lookup(f.Test.Name)
	if !ok {
		return fmt.Errorf("%s: unknown demo program %q", path, f.Test.Name)
	}
	steps := f.Steps
	if *until > 0 {
		steps = truncateSteps(steps, *until)
	}
	r := engine.Run(prog.Body, strategy.NewReplay(steps, strategy.ReplayThen(stopper{})), engine.Config{Name: prog.Name, MaxSteps: engine.ReplayMaxSteps(f)})
	shown := r.Schedule
	report.WriteSchedule(stdout, shown)
	if *until > 0 && *until < f.Result.Steps {
		fmt.Fprintf(stdout, "\nstopped after step %d of %d.\n", *until, f.Result.Steps)
		return nil
	}
	if err := engine.CheckReproduced(f, r); err != nil {
		return err
	}
	if r.Bug == nil {
		fmt.Fprintf(stdout, "\nthe schedule passes.\n")
		return nil
	}
	fmt.Fprint(stdout, "\n"+report.FormatFailure(&engine.Report{Strategy: "replay", Schedules: 1, First: r, FirstAt: 1}, "", ""))
	return base.ErrBug
}

// truncateSteps keeps the first n goroutine steps (and the choices made during them).
func truncateSteps(steps []schedule.Step, n int) []schedule.Step {
	runs := 0
	for i, s := range steps {
		if s.Kind == schedule.Run {
			if runs == n {
				return steps[:i]
			}
			runs++
		}
	}
	return steps
}

// stopper ends a replay that was cut short with -until: the execution stops at the first
// decision after the recorded steps.
type stopper struct{}

func (stopper) Name() string                     { return "stop" }
func (stopper) Params() map[string]string        { return nil }
func (stopper) Begin() bool                      { return true }
func (stopper) Pick(*engine.Decision) engine.GID { return engine.NoGoroutine }
func (stopper) Choose(*engine.Choice) int        { return -1 }
func (stopper) End(*engine.Result)               {}
func (stopper) Err() error                       { return errStopped }

var errStopped = fmt.Errorf("stopped as asked")

// BuildFor instruments and builds the package of the schedule file f, found from the file's
// own location (the results store is at its module's root) or else from the working
// directory, as the schedule was found (its Instrument and BuildFlags).
func BuildFor(ctx context.Context, path string, f *schedule.File, work string) (*instrument.Package, error) {
	var dirs []string
	if abs, err := filepath.Abs(path); err == nil {
		dirs = append(dirs, filepath.Dir(abs))
	}
	if wd, err := os.Getwd(); err == nil {
		dirs = append(dirs, wd)
	}
	root, err := store.ModuleRoot(f.Test.Module, dirs...)
	if err != nil {
		return nil, fmt.Errorf("the schedule %s: %w", path, err)
	}
	// Built as the schedule was found: with the modules instrumented on request and the
	// build flags it records (a file is data: only flags that run nothing are taken).
	if err := instrument.CheckRecordedFlags(path, f.BuildFlags); err != nil {
		return nil, err
	}
	res, err := instrument.Build(ctx, instrument.Config{Dir: root, Patterns: []string{f.Test.Package}, Work: work,
		Modules: f.Instrument, BuildFlags: f.BuildFlags})
	if err != nil {
		var ie *instrument.Error
		if errors.As(err, &ie) {
			return nil, fmt.Errorf("%s of the schedule's package failed:\n%s", ie.Op, base.IndentLines(strings.TrimSpace(ie.Detail), "\t"))
		}
		return nil, err
	}
	for _, p := range res.Packages {
		if p.ImportPath == f.Test.Package && p.Binary != "" {
			tests, err := test.ListTests(ctx, p, "^"+regexp.QuoteMeta(f.Test.Name)+"$", "")
			if err != nil {
				return nil, err
			}
			if len(tests) == 0 {
				return nil, fmt.Errorf("%s is a schedule of test %s, which package %s does not have (renamed or removed since)", path, f.Test.Name, f.Test.Package)
			}
			return p, nil
		}
	}
	return nil, fmt.Errorf("package %s of the schedule has no tests", f.Test.Package)
}

// replayTest replays a schedule of an ordinary test: it builds the test's package
// instrumented, runs the test with the schedule, and prints the trace and the bug. A schedule
// recorded by other code is replayed up to the first divergence, with a notice, unless strict.
func replayTest(path string, f *schedule.File, until int, strict bool, stdout, stderr io.Writer) error {
	ctx, stop := base.StopContext()
	defer stop()
	work, err := instrument.WorkDir("interleave-build")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	p, err := BuildFor(ctx, path, f, work)
	if err != nil {
		return err
	}
	abs, _ := filepath.Abs(path)
	res, _, err := test.ExecTest(ctx, p, f.Test.Name, []string{"INTERLEAVE_REPLAY=" + abs, StrictEnv(strict)}, nil)
	if err != nil {
		return err
	}
	if res.Notice != "" {
		fmt.Fprintf(stderr, "interleave replay: %s\n", strings.ReplaceAll(res.Notice, "\n", "\ninterleave replay: "))
	}
	if res.Error != "" {
		msg := res.Error
		if strings.Contains(msg, "diverged") && !strings.Contains(msg, "the source changed since the schedule was saved") {
			msg += "\nthe test did something else under the same schedule: it depends on something the scheduler does not control (files, the real clock, math/rand, a package variable an earlier execution changed)"
		}
		return fmt.Errorf("%s", msg)
	}
	steps := res.Trace
	if until > 0 {
		steps = truncateSteps(steps, until)
	}
	report.WriteSchedule(stdout, steps)
	if until > 0 && until < f.Result.Steps {
		fmt.Fprintf(stdout, "\nstopped after step %d of %d.\n", until, f.Result.Steps)
		return nil
	}
	if res.Bug == nil {
		fmt.Fprintf(stdout, "\nthe schedule passes.\n")
		return nil
	}
	fmt.Fprint(stdout, "\n"+res.Report)
	return base.ErrBug
}

// StrictEnv is the variable that makes the test binary refuse a schedule file recorded by
// other code.
func StrictEnv(strict bool) string {
	if strict {
		return "INTERLEAVE_REPLAY_STRICT=1"
	}
	return "INTERLEAVE_REPLAY_STRICT=0"
}
