package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/demo"
	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/report"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/store"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// runDemo explores a bundled example, prints the first bug with its schedule, saves the
// schedule file and checks that it replays to the same bug.
func runDemo(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	strat := fs.String("strategy", explore.DefaultStrategy, "strategy, with parameters as name:key=value,... ("+strings.Join(strategy.Names, ", ")+")")
	schedules := fs.Int("schedules", explore.DefaultSchedules, "maximum number of schedules")
	seed := fs.Uint64("seed", 1, "seed of randomized strategies")
	dir := fs.String("o", "", "directory for the schedule file (default: .interleave/schedules at the module root, or the current directory)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: interleave demo [flags] [program]\n\nPrograms:\n")
		for _, n := range demo.Names() {
			p, _ := demo.Lookup(n)
			fmt.Fprintf(stderr, "  %-13s %s\n", n, p.Description)
		}
		fmt.Fprintf(stderr, "\nFlags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	name := "bank"
	switch fs.NArg() {
	case 0:
	case 1:
		name = fs.Arg(0)
	default:
		return fmt.Errorf("%w: at most one program", errUsage)
	}
	prog, ok := demo.Lookup(name)
	if !ok {
		return fmt.Errorf("%w: unknown program %q (known: %s)", errUsage, name, strings.Join(demo.Names(), ", "))
	}
	sname, params, err := strategy.Parse(*strat)
	if err != nil {
		return fmt.Errorf("%w: -strategy: %v", errUsage, err)
	}
	s, err := strategy.New(sname, params, *seed)
	if err != nil {
		return fmt.Errorf("%w: -strategy: %v", errUsage, err)
	}

	fmt.Fprintf(stdout, "exploring %s — %s\nstrategy %s, up to %d schedules\n\n", prog.Name, prog.Description, *strat, *schedules)
	info := schedule.Test{Module: "github.com/interleave-dev/interleave", Package: demo.Package, Name: prog.Name}
	var file *schedule.File
	rep := engine.Explore(prog.Body, engine.Config{
		Strategy:  s,
		Name:      prog.Name,
		Schedules: *schedules,
		OnExecution: func(n int, r *engine.Result) {
			if r.Bug != nil && file == nil {
				file = engine.NewScheduleFile(r, info, s, n)
			}
		},
	})
	if rep.Err != nil {
		return rep.Err
	}
	if rep.First == nil {
		fmt.Fprintf(stdout, "%s\n", report.Summary(rep))
		return nil
	}
	path, err := saveDemoSchedule(*dir, file)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, report.FormatFailure(rep, path, ""))
	fmt.Fprintf(stdout, "\nthe schedule (%d steps; %d schedules explored in %v, %.0f schedules/s):\n", rep.First.Steps, rep.Schedules, rep.Elapsed.Round(time.Microsecond), rep.SchedulesPerSecond())
	report.WriteSchedule(stdout, file.Steps)

	// The schedule file must replay to the same bug.
	loaded, err := schedule.Load(path)
	if err != nil {
		return err
	}
	r := engine.Run(prog.Body, strategy.NewReplayFile(loaded), engine.Config{Name: prog.Name, MaxSteps: engine.ReplayMaxSteps(loaded)})
	if err := engine.CheckReproduced(loaded, r); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nreplayed %s: same bug at the same step.\nstep through it: interleave replay %s\n", path, path)
	return errBug
}

// saveDemoSchedule saves f under dir, or the store of the module in the working directory, or
// the working directory itself.
func saveDemoSchedule(dir string, f *schedule.File) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		if dir, err = store.ScheduleDir(wd); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := fmt.Sprintf("%s/demo-%s-%s.json", dir, f.Test.Name, f.Bug.Kind)
	if err := f.Save(path); err != nil {
		return "", err
	}
	return path, nil
}
