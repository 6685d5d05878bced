package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/replay"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/test"
	"github.com/interleave-dev/interleave/engine/instrument"
	"github.com/interleave-dev/interleave/engine/schedule"
)

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
	p, err := replay.BuildFor(ctx, path, f, work)
	if err != nil {
		return err
	}
	dst := *outPath
	if dst == "" {
		dst = strings.TrimSuffix(path, ".json") + ".min.json"
	}
	abs, _ := filepath.Abs(path)
	absDst, _ := filepath.Abs(dst)
	res, _, err := test.ExecTest(ctx, p, f.Test.Name, []string{"INTERLEAVE_MINIMIZE_FILE=" + abs, "INTERLEAVE_MINIMIZE_OUT=" + absDst, "INTERLEAVE_MINIMIZE=" + budget.String(), replay.StrictEnv(*strict)}, nil)
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
