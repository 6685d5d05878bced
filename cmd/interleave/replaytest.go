package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/base"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/test"
	"github.com/interleave-dev/interleave/engine/instrument"
	"github.com/interleave-dev/interleave/engine/report"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/store"
)

// buildFor instruments and builds the package of the schedule file f, found from the file's
// own location (the results store is at its module's root) or else from the working
// directory.
func buildFor(ctx context.Context, path string, f *schedule.File, work string) (*instrument.Package, error) {
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
	res, err := instrument.Build(ctx, instrument.Config{Dir: root, Patterns: []string{f.Test.Package}, Work: work})
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
	ctx, stop := stopContext()
	defer stop()
	work, err := instrument.WorkDir("interleave-build")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	p, err := buildFor(ctx, path, f, work)
	if err != nil {
		return err
	}
	abs, _ := filepath.Abs(path)
	res, _, err := test.ExecTest(ctx, p, f.Test.Name, []string{"INTERLEAVE_REPLAY=" + abs, strictEnv(strict)}, nil)
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
	return errBug
}

// runMinimize shrinks a schedule file to the fewest preemptions that still give its bug and
// writes the result beside it.
func runMinimize(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("minimize", stderr)
	budget := fs.Duration("time", 0, "time budget (0: until 1-minimal)")
	outPath := fs.String("o", "", "write the minimized schedule to `FILE` (default: beside the input, .min.json)")
	strict := fs.Bool("strict", false, "refuse a schedule recorded by other code (by default it is minimized anyway)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: want one schedule file", errUsage)
	}
	if *budget < 0 {
		return fmt.Errorf("%w: -time %v: want a duration ≥ 0 (0: until 1-minimal)", errUsage, *budget)
	}
	path := fs.Arg(0)
	f, err := schedule.Load(path)
	if err != nil {
		return err
	}
	if f.Bug == nil {
		return fmt.Errorf("%s: the schedule has no bug to keep", path)
	}
	ctx, stop := stopContext()
	defer stop()
	work, err := instrument.WorkDir("interleave-build")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	p, err := buildFor(ctx, path, f, work)
	if err != nil {
		return err
	}
	dst := *outPath
	if dst == "" {
		dst = strings.TrimSuffix(path, ".json") + ".min.json"
	}
	abs, _ := filepath.Abs(path)
	absDst, _ := filepath.Abs(dst)
	res, _, err := test.ExecTest(ctx, p, f.Test.Name, []string{"INTERLEAVE_MINIMIZE_FILE=" + abs, "INTERLEAVE_MINIMIZE_OUT=" + absDst, "INTERLEAVE_MINIMIZE=" + budget.String(), strictEnv(*strict)}, nil)
	if err != nil {
		return err
	}
	if res.Notice != "" {
		fmt.Fprintf(stderr, "interleave minimize: %s\n", res.Notice)
	}
	if res.Error != "" {
		return fmt.Errorf("minimize %s: %s", path, res.Error)
	}
	if res.Bug == nil {
		return fmt.Errorf("minimize %s: no result", path)
	}
	fmt.Fprintf(stdout, "%s: %s at %s\npreemptions: %d → %d\nwritten: %s\n", path, res.Bug.Kind, res.Bug.Position, res.Bug.FoundPreemptions, res.Bug.Preemptions, dst)
	return nil
}

// strictEnv is the variable that makes the test binary refuse a schedule file recorded by
// other code.
func strictEnv(strict bool) string {
	if strict {
		return "INTERLEAVE_REPLAY_STRICT=1"
	}
	return "INTERLEAVE_REPLAY_STRICT=0"
}
