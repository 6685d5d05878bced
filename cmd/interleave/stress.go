package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/test"
	"github.com/interleave-dev/interleave/engine/instrument"
	"github.com/interleave-dev/interleave/engine/random"
	"github.com/interleave-dev/interleave/engine/stress"
)

func init() {
	commands = append(commands, command{"stress", "[flags] [packages]", "run tests for real, repeatedly and together, with randomized inputs and timing", runStress})
}

// stressProc is one stress process to run.
type stressProc struct {
	pkg   *instrument.Package
	plan  stress.Plan
	phase string // "alone" or "together"
	// fresh: the process runs one iteration of its test, and is started again while the
	// budget lasts (a test that cannot run repeatedly in one process).
	fresh bool
	// startedAt is when the running attempt started, since the run's start: a failure's
	// Elapsed (since its process started) is made relative to the run.
	startedAt time.Duration
}

// stressRun gathers the events of a run's processes.
type stressRun struct {
	f   *stressFlags
	out io.Writer
	err io.Writer
	mu  sync.Mutex
	// tests are the statistics per package and test, summed over processes and phases;
	// combos the rounds per combination; spreads the melting pots' final spreads.
	tests    map[string]map[string]*stress.TestStats
	combos   map[string]map[string]int64
	spreads  map[string][]float64
	failures []*stressRecord
	last     map[*stressProc]*stress.Event // the latest statistics of each process
	started  time.Time
	line     bool
	terminal bool
}

func runStress(args []string, stdout, stderr io.Writer) error {
	f, err := parseStressFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	if err != nil {
		return err
	}
	ctx, stop := stopContext()
	defer stop()
	var repro *stressRecord
	if f.repro != "" {
		if repro, err = readStressRecord(f.repro); err != nil {
			return err
		}
		f.packages = []string{repro.Dir}
		f.buildFlags = repro.BuildFlags
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	wd, f.packages = test.ModuleOf(wd, f.packages)
	work, err := instrument.WorkDir("interleave-stress")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	fmt.Fprintf(stderr, "interleave stress: seed %d, %v, %d processes\n", f.seed, f.budget, f.workers)
	res, err := instrument.Build(ctx, instrument.Config{Dir: wd, Patterns: f.packages, BuildFlags: f.buildFlags, Work: work})
	if err != nil {
		return test.BuildFailed(err)
	}
	for _, p := range res.Problems {
		fmt.Fprintf(stderr, "interleave: not instrumented: %s: %s\n", test.RelPos(wd, p.Pos.String()), p.Msg)
	}
	r := &stressRun{f: f, out: stdout, err: stderr, tests: map[string]map[string]*stress.TestStats{},
		combos: map[string]map[string]int64{}, spreads: map[string][]float64{}, last: map[*stressProc]*stress.Event{}, started: time.Now()}
	if file, ok := stderr.(*os.File); ok && !f.json {
		if st, err := file.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			r.terminal = true
		}
	}
	if repro != nil {
		return r.reproduce(ctx, res.Packages, repro, work)
	}
	type pkgTests struct {
		p     *instrument.Package
		cfg   *random.Config
		tests []string // those that may run repeatedly in one process
		fresh []string // those that may not
	}
	var pkgs []pkgTests
	for _, p := range res.Packages {
		if p.Binary == "" {
			continue
		}
		tests, err := test.ListTests(ctx, p, f.run, f.skip)
		if err != nil {
			return err
		}
		cfg, err := random.LoadConfig(p.Dir)
		if err != nil {
			return err
		}
		pt := pkgTests{p: p, cfg: cfg}
		for _, t := range tests {
			if cfg.Test(t).Fresh {
				pt.fresh = append(pt.fresh, t)
			} else {
				pt.tests = append(pt.tests, t)
			}
		}
		if len(tests) > 0 {
			pkgs = append(pkgs, pt)
		}
	}
	if len(pkgs) == 0 {
		return fmt.Errorf("no tests to run in %s", strings.Join(f.packages, " "))
	}
	seeds := rand.New(rand.NewPCG(f.seed, 0x737472657373)) // "stress"
	// Phase 1: every test alone, the tests of a package taking turns in each of -p processes
	// (a test runs in several processes, with different seeds, when there are fewer tests
	// than processes). It gets the whole budget when no package has two tests to combine.
	alone := f.budget
	if f.combine > 1 && slices.ContainsFunc(pkgs, func(pt pkgTests) bool { return len(pt.tests) > 1 }) {
		// A quarter of the budget, at least a second (each test's first iterations, which
		// tell whether it may run beside others and how long it takes) and at most half.
		alone = min(f.budget/2, max(time.Second, f.budget/4))
	}
	var procs []*stressProc
	for _, pt := range pkgs {
		for _, t := range pt.fresh {
			procs = append(procs, &stressProc{pkg: pt.p, phase: "alone", fresh: true, plan: stress.Plan{Tests: []string{t}, Combine: 1, Iterations: 1, Seed: seeds.Uint64()}})
		}
		if len(pt.tests) == 0 {
			continue
		}
		n := max(1, f.workers/len(pkgs))
		for k := 0; k < n; k++ {
			var tests []string
			for i := k % len(pt.tests); i < len(pt.tests); i += n {
				tests = append(tests, pt.tests[i])
			}
			procs = append(procs, &stressProc{pkg: pt.p, phase: "alone", plan: stress.Plan{Tests: tests, Combine: 1, Seed: seeds.Uint64()}})
		}
	}
	r.runAll(ctx, procs, alone, work)
	aloneProcs := slices.Clone(procs)
	// Phase 2: the melting pot of each package's tests that may run beside others and have
	// not failed alone (§5.1.3: a test joins the pot once it runs successfully on its own);
	// the tests in no pot go on alone.
	if f.combine > 1 && ctx.Err() == nil {
		procs = nil
		inPot := map[string]bool{} // package + " " + test
		for _, pt := range pkgs {
			cfg := pt.cfg
			var pot []string
			for _, name := range pt.tests {
				s := r.stats(pt.p.ImportPath, name)
				ok := s.Parallel
				if c := cfg.Test(name).Combine; c != nil {
					ok = *c
				}
				if ok && len(s.Failures) == 0 {
					pot = append(pot, name)
				}
			}
			if len(pot) < 2 {
				continue
			}
			for _, name := range pot {
				inPot[pt.p.ImportPath+" "+name] = true
			}
			for k := 0; k < max(1, f.workers/len(pkgs)); k++ {
				procs = append(procs, &stressProc{pkg: pt.p, phase: "together", plan: stress.Plan{Tests: pot, Combine: min(f.combine, len(pot)), Seed: seeds.Uint64()}})
			}
		}
		for _, p := range aloneProcs {
			rest := slices.DeleteFunc(slices.Clone(p.plan.Tests), func(t string) bool { return inPot[p.pkg.ImportPath+" "+t] })
			if len(rest) == 0 {
				continue
			}
			q := *p
			q.plan.Tests, q.plan.Seed = rest, seeds.Uint64()
			procs = append(procs, &q)
		}
		r.runAll(ctx, procs, f.budget-time.Since(r.started), work)
	}
	r.clearLine()
	if f.explore && ctx.Err() == nil {
		r.exploreFailures(ctx, res.Packages)
	}
	if err := r.save(); err != nil {
		fmt.Fprintf(stderr, "interleave: %v\n", err)
	}
	r.summary()
	if len(r.failures) > 0 {
		return errBug
	}
	return nil
}
