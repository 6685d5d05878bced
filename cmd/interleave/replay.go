package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/demo"
	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/report"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// runReplay re-runs a schedule file and prints its trace step by step, with the bug at the end.
func runReplay(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	until := fs.Int("until", 0, "stop after step `N` (0: run to the end)")
	strict := fs.Bool("strict", false, "refuse a schedule recorded by other code (by default it is replayed up to the first divergence)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: want one schedule file", errUsage)
	}
	if *until < 0 {
		return fmt.Errorf("%w: -until %d: want a step number ≥ 0 (0: run to the end)", errUsage, *until)
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
	return errBug
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
