package main

// interleave stress's usage and flags.

import (
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"runtime"
	"time"
)

const stressUsage = `usage: interleave stress [build flags] [packages] [-run regexp] [-skip regexp] [-time D]
                        [-p N] [-combine N] [-seed S] [-hang D] [-race] [-explore=false] [-json] [-v]
       interleave stress -repro FILE [-time D]

Stress runs the selected tests for real — not under the controlled scheduler — over and over
on all cores, as the stochastic stress framework of Gunal & Patil does: first each test alone
(the individual stress tests) for a quarter of -time, then, for the rest, the tests that may run
beside others (those that call t.Parallel, or that interleave-stress.json marks "combine")
N at a time in one process on the same package state (the melting pot), with the tests
chosen by its fair scheduler. Inputs come from the random package's distributions (set per
test in interleave-stress.json), goroutines are suspended and delayed at random at their
instrumented operations, and GOMAXPROCS varies between rounds, all from the seed. An
iteration that does not return within its hang limit is a hang (every goroutine's stack is
printed); goroutines left running after an iteration are a leak; panics and failures are
reported, and data races with -race. Every failure is saved under .interleave/stress with what
re-running it needs (-repro FILE); then, for a test the controlled engine can run, interleave
test explores it and links the replayable schedule when it finds the bug.

`

// stressFlags are interleave stress's flags.
type stressFlags struct {
	packages   []string
	buildFlags []string
	run, skip  string
	budget     time.Duration
	workers    int
	combine    int
	seed       uint64
	hang       time.Duration
	explore    bool
	json       bool
	verbose    bool
	repro      string
}

func parseStressFlags(args []string, stderr io.Writer) (*stressFlags, error) {
	f := &stressFlags{}
	fs := newFlagSet("stress", stderr)
	fs.StringVar(&f.run, "run", "", "run only the tests matching `regexp`")
	fs.StringVar(&f.skip, "skip", "", "skip the tests matching `regexp`")
	fs.DurationVar(&f.budget, "time", time.Minute, "run for `D` in all")
	fs.IntVar(&f.workers, "p", runtime.NumCPU(), "`N` processes at once")
	fs.IntVar(&f.combine, "combine", 2, "`N` tests at once in the melting pot (1: no melting pot)")
	fs.Uint64Var(&f.seed, "seed", 0, "the run's seed `S` (default: drawn at random, and printed)")
	fs.DurationVar(&f.hang, "hang", 0, "every test's hang limit `D` (default: interleave-stress.json, else 50× the test's average, at least 5s)")
	fs.BoolVar(&f.explore, "explore", true, "explore each failing test with interleave test, for a replayable schedule")
	fs.BoolVar(&f.json, "json", false, "print the stress events as JSON, one per line")
	fs.BoolVar(&f.verbose, "v", false, "print the test binaries' output")
	fs.StringVar(&f.repro, "repro", "", "re-run the failure recorded in `FILE`")
	race := fs.Bool("race", false, "build with Go's race detector and report its races")
	tags := fs.String("tags", "", "build `tags`, as go test -tags")
	fs.Usage = func() {
		fmt.Fprint(stderr, stressUsage)
		fs.PrintDefaults()
	}
	// Flags and packages may be interleaved, as go test allows.
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			return nil, err
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		f.packages = append(f.packages, rest[0])
		rest = rest[1:]
	}
	if *race {
		f.buildFlags = append(f.buildFlags, "-race")
	}
	if *tags != "" {
		f.buildFlags = append(f.buildFlags, "-tags="+*tags)
	}
	for _, re := range []struct{ name, v string }{{"-run", f.run}, {"-skip", f.skip}} {
		if _, err := regexp.Compile(re.v); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", errUsage, re.name, err)
		}
	}
	switch {
	case f.budget <= 0:
		return nil, fmt.Errorf("%w: -time %v: want a positive duration", errUsage, f.budget)
	case f.workers < 1:
		return nil, fmt.Errorf("%w: -p %d: want at least 1 process", errUsage, f.workers)
	case f.combine < 1:
		return nil, fmt.Errorf("%w: -combine %d: want at least 1 test at once", errUsage, f.combine)
	}
	if f.seed == 0 {
		f.seed = rand.Uint64()>>1 | 1
	}
	if len(f.packages) == 0 {
		f.packages = []string{"."}
	}
	return f, nil
}
