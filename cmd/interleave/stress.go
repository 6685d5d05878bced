package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/interleave-dev/interleave/engine/instrument"
	"github.com/interleave-dev/interleave/engine/random"
	"github.com/interleave-dev/interleave/engine/store"
	"github.com/interleave-dev/interleave/engine/stress"
)

func init() {
	commands = append(commands, command{"stress", "[flags] [packages]", "run tests for real, repeatedly and together, with randomized inputs and timing", runStress})
}

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

// stressRecord is a failure as saved under .interleave/stress: what re-running it needs.
type stressRecord struct {
	Package    string          `json:"package"`
	Dir        string          `json:"dir"`
	BuildFlags []string        `json:"buildFlags,omitempty"`
	Seed       uint64          `json:"seed"`
	Failure    *stress.Failure `json:"failure"`
	// Schedule is the schedule interleave test found for the failing test, when it did.
	Schedule string `json:"schedule,omitempty"`
	Explored string `json:"explored,omitempty"` // what the exploration said
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
	wd, f.packages = moduleOf(wd, f.packages)
	work, err := instrument.WorkDir("interleave-stress")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	fmt.Fprintf(stderr, "interleave stress: seed %d, %v, %d processes\n", f.seed, f.budget, f.workers)
	res, err := instrument.Build(ctx, instrument.Config{Dir: wd, Patterns: f.packages, BuildFlags: f.buildFlags, Work: work})
	if err != nil {
		var ie *instrument.Error
		if errors.As(err, &ie) {
			return fmt.Errorf("%s failed; nothing was run:\n%s", ie.Op, indentLines(strings.TrimSpace(ie.Detail), "\t"))
		}
		return err
	}
	for _, p := range res.Problems {
		fmt.Fprintf(stderr, "interleave: not instrumented: %s: %s\n", relPos(wd, p.Pos.String()), p.Msg)
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
		tests, err := listTests(ctx, p, f.run, f.skip)
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

// runAll runs procs, at most -p at once, within budget: in waves of -p processes when there
// are more, each process getting its wave's share. A process that ended on a failure it
// cannot survive (a hang, a panic, a data race) is started again without the failing test
// for the rest of its share.
func (r *stressRun) runAll(ctx context.Context, procs []*stressProc, budget time.Duration, work string) {
	if budget <= 0 {
		return
	}
	waves := (len(procs) + r.f.workers - 1) / r.f.workers
	share := budget / time.Duration(max(1, waves))
	sem := make(chan struct{}, r.f.workers)
	var wg sync.WaitGroup
	for i, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			deadline := time.Now().Add(share)
			for attempt := 0; ctx.Err() == nil; attempt++ {
				left := time.Until(deadline)
				if left < 10*time.Millisecond || len(p.plan.Tests) == 0 {
					return
				}
				p.plan.Budget = left
				p.plan.Hang = r.f.hang
				p.plan.Delay, p.plan.DelayMax, p.plan.Randomizer = 0.002, 100*time.Microsecond, true
				p.plan.Events = filepath.Join(work, fmt.Sprintf("stress-%d-%d.events", i, attempt))
				crashed, err := r.runProc(ctx, p)
				if err != nil {
					fmt.Fprintf(r.err, "interleave stress: %s: %v\n", p.pkg.ImportPath, err)
					return
				}
				if crashed == "" {
					if p.fresh {
						p.plan.Seed = p.plan.Seed*6364136223846793005 + 1442695040888963407
						continue
					}
					return
				}
				p.plan.Tests = slices.DeleteFunc(slices.Clone(p.plan.Tests), func(s string) bool { return s == crashed })
				p.plan.Combine = min(p.plan.Combine, len(p.plan.Tests))
				if p.phase == "together" && len(p.plan.Tests) < 2 {
					return
				}
			}
		}()
	}
	wg.Wait()
}

// runProc runs one stress process and reads its events; it returns the test whose failure
// ended the process early, if one did.
func (r *stressRun) runProc(ctx context.Context, p *stressProc) (crashed string, err error) {
	planJSON, _ := json.Marshal(p.plan)
	if err := os.WriteFile(p.plan.Events, nil, 0o644); err != nil {
		return "", err
	}
	cmd := instrument.Command(ctx, p.pkg.Binary, "-test.run", "^("+strings.Join(quoteAll(p.plan.Tests), "|")+")$",
		"-test.count=1", "-test.timeout=0", "-test.parallel="+strconv.Itoa(len(p.plan.Tests)+1))
	cmd.Dir = p.pkg.Dir
	cmd.Env = append(append(os.Environ(), stress.EnvPlan+"="+string(planJSON), "INTERLEAVE_CLI=1", "GORACE=halt_on_error=1 exitcode=66"), p.pkg.BuildEnv()...)
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	p.startedAt = time.Since(r.started)
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("run the test binary: %w", err)
	}
	// Follow the event file while the process runs.
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	ev, err := os.Open(p.plan.Events)
	if err != nil {
		return "", err
	}
	defer ev.Close()
	rd := bufio.NewReader(ev)
	var partial []byte
	read := func() {
		for {
			line, err := rd.ReadBytes('\n')
			if err != nil {
				partial = append(partial, line...)
				return
			}
			if len(partial) > 0 {
				line = append(partial, line...)
				partial = nil
			}
			var e stress.Event
			if json.Unmarshal(line, &e) == nil {
				if c := r.event(p, &e); c != "" {
					crashed = c
				}
			}
		}
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var waitErr error
loop:
	for {
		select {
		case waitErr = <-done:
			read()
			break loop
		case <-tick.C:
			read()
			r.progress()
		}
	}
	if r.f.verbose {
		fmt.Fprint(r.err, log.String())
	}
	if code := exitCode(waitErr); code == 66 || strings.Contains(log.String(), "WARNING: DATA RACE") {
		// Go's race detector ended the process (GORACE halt_on_error): its report names the
		// accesses, and the test is the one whose function the report names first.
		test := raceTest(log.String(), p.plan.Tests)
		f := &stress.Failure{Kind: stress.KindRace, Test: test, Message: "data race (Go's race detector)", Stacks: raceReport(log.String()),
			Elapsed: time.Since(r.started)}
		if r.f.json {
			// Not one of the process's events (the race detector ended it): written here.
			r.printJSON(p, &stress.Event{Action: "failure", Time: time.Now(), Failure: f})
		}
		r.record(p, f)
		return test, nil
	}
	if crashed == "" && waitErr != nil && ctx.Err() == nil {
		r.mu.Lock()
		e := r.last[p]
		r.mu.Unlock()
		if e == nil || e.Action != "done" {
			return "", fmt.Errorf("the test binary ended without its statistics: %s:\n%s", whyEnded(waitErr), indentLines(lastLines(log.String(), 30), "\t"))
		}
	}
	return crashed, nil
}

func exitCode(err error) int {
	var ee interface{ ExitCode() int }
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return 0
}

func quoteAll(names []string) []string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = regexp.QuoteMeta(n)
	}
	return q
}

// raceReport returns the race detector's first report in log.
func raceReport(log string) string {
	i := strings.Index(log, "WARNING: DATA RACE")
	if i < 0 {
		return ""
	}
	rest := log[i:]
	if j := strings.Index(rest, "=================="); j > 0 {
		rest = rest[:j]
	}
	return strings.TrimSpace(rest)
}

// raceTest names the test of tests whose function appears first in the race report (the
// only one, when there is one).
func raceTest(log string, tests []string) string {
	if len(tests) == 1 {
		return tests[0]
	}
	rep := raceReport(log)
	best, at := "", len(rep)+1
	for _, t := range tests {
		if i := strings.Index(rep, ".__il"+t+"."); i >= 0 && i < at {
			best, at = t, i
		}
	}
	if best == "" && len(tests) > 0 {
		best = tests[0]
	}
	return best
}

// event takes one event of p; it returns the failing test when the event says the process
// ends on its failure.
func (r *stressRun) event(p *stressProc, e *stress.Event) string {
	if e.Failure != nil {
		e.Failure.Elapsed += p.startedAt // since the run started
	}
	r.mu.Lock()
	r.last[p] = e
	r.mu.Unlock()
	if r.f.json {
		r.printJSON(p, e)
	}
	if e.Action == "done" {
		r.addStats(p, e)
	}
	if e.Failure != nil {
		r.record(p, e.Failure)
		if e.Failure.Kind == stress.KindHang || e.Failure.Kind == stress.KindPanic {
			return e.Failure.Test
		}
	}
	return ""
}

// printJSON writes e as a line of -json output.
func (r *stressRun) printJSON(p *stressProc, e *stress.Event) {
	b, _ := json.Marshal(struct {
		Package string `json:"package"`
		Phase   string `json:"phase"`
		*stress.Event
	}{p.pkg.ImportPath, p.phase, e})
	r.mu.Lock()
	fmt.Fprintf(r.out, "%s\n", b)
	r.mu.Unlock()
}

// addStats adds a finished process's statistics to the run's.
func (r *stressRun) addStats(p *stressProc, e *stress.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	pkg := p.pkg.ImportPath
	if r.tests[pkg] == nil {
		r.tests[pkg] = map[string]*stress.TestStats{}
		r.combos[pkg] = map[string]int64{}
	}
	for _, t := range e.Tests {
		s := r.tests[pkg][t.Name]
		if s == nil {
			s = &stress.TestStats{Name: t.Name, Failures: map[string]int{}}
			r.tests[pkg][t.Name] = s
		}
		s.Iterations += t.Iterations
		s.Total += t.Total
		s.Parallel = s.Parallel || t.Parallel
		for k, v := range t.Failures {
			s.Failures[k] += v
		}
	}
	for k, v := range e.Combinations {
		r.combos[pkg][k] += v
	}
	if p.phase == "together" {
		r.spreads[pkg] = append(r.spreads[pkg], e.Spread)
	}
}

func (r *stressRun) stats(pkg, test string) stress.TestStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.tests[pkg][test]; s != nil {
		return *s
	}
	return stress.TestStats{Name: test}
}

// record keeps a failure and prints it.
func (r *stressRun) record(p *stressProc, f *stress.Failure) {
	rec := &stressRecord{Package: p.pkg.ImportPath, Dir: p.pkg.Dir, BuildFlags: r.f.buildFlags, Seed: p.plan.Seed, Failure: f}
	r.mu.Lock()
	defer r.mu.Unlock()
	if f.Kind == stress.KindRace {
		// The process ended without its statistics: the race is counted here.
		pkg := p.pkg.ImportPath
		if r.tests[pkg] == nil {
			r.tests[pkg] = map[string]*stress.TestStats{}
			r.combos[pkg] = map[string]int64{}
		}
		if r.tests[pkg][f.Test] == nil {
			r.tests[pkg][f.Test] = &stress.TestStats{Name: f.Test, Failures: map[string]int{}}
		}
		r.tests[pkg][f.Test].Failures[f.Kind]++
	}
	r.failures = append(r.failures, rec)
	if r.f.json {
		return
	}
	r.clearLineLocked()
	with := ""
	if len(f.Together) > 0 {
		with = " (together with " + strings.Join(f.Together, ", ") + ")"
	}
	where := ""
	if f.Iteration > 0 {
		where = fmt.Sprintf(", iteration %d%s, GOMAXPROCS %d", f.Iteration, with, f.GOMAXPROCS)
	}
	fmt.Fprintf(r.out, "--- %s: %s %s%s, after %v\n", strings.ToUpper(f.Kind), p.pkg.ImportPath, f.Test, where, f.Elapsed.Round(time.Millisecond))
	if f.Pos != "" {
		fmt.Fprintf(r.out, "    %s: %s\n", f.Pos, f.Message)
	} else {
		fmt.Fprintf(r.out, "    %s\n", f.Message)
	}
	for _, l := range f.Logs {
		if !strings.HasSuffix(l, ": "+f.Message) {
			fmt.Fprintf(r.out, "    %s\n", l)
		}
	}
	if len(f.Inputs) > 0 {
		var in []string
		for _, d := range f.Inputs {
			in = append(in, fmt.Sprintf("%s=%v", d.Name, d.Value))
		}
		fmt.Fprintf(r.out, "    inputs: %s\n", strings.Join(in, " "))
	}
	if f.Stacks != "" {
		fmt.Fprintf(r.out, "%s\n", indentLines(lastLinesHead(f.Stacks, 60), "    "))
	}
}

// lastLinesHead returns the first n lines of s, saying how many were left out.
func lastLinesHead(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n... (%d more lines in the saved record)", len(lines)-n)
}

// progress shows the live progress line: iterations per test and failures, summed over the
// running processes.
func (r *stressRun) progress() {
	if !r.terminal {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	per := map[string]int64{}
	var names []string
	var rounds int64
	for _, e := range r.last {
		for _, t := range e.Tests {
			if _, ok := per[t.Name]; !ok {
				names = append(names, t.Name)
			}
			per[t.Name] += t.Iterations
		}
		rounds += e.Rounds
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %d", n, per[n]))
	}
	line := fmt.Sprintf("%v: %d rounds, %d failures; iterations: %s", time.Since(r.started).Round(time.Second), rounds, len(r.failures), strings.Join(parts, ", "))
	if len(line) > 160 {
		line = line[:157] + "..."
	}
	fmt.Fprintf(r.err, "\r\033[K%s", line)
	r.line = true
}

func (r *stressRun) clearLine() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearLineLocked()
}

func (r *stressRun) clearLineLocked() {
	if r.line {
		fmt.Fprint(r.err, "\r\033[K")
		r.line = false
	}
}

// exploreFailures runs interleave test on each failing test the controlled engine can run,
// with interleave test's defaults (its processes included), and links the schedule it finds:
// stress finds the bug, the explorer makes it debuggable.
func (r *stressRun) exploreFailures(ctx context.Context, pkgs []*instrument.Package) {
	byPath := map[string]*instrument.Package{}
	for _, p := range pkgs {
		byPath[p.ImportPath] = p
	}
	seen := map[string]*stressRecord{}
	for _, rec := range r.failures {
		p := byPath[rec.Package]
		if p == nil || rec.Failure.Test == "" || ctx.Err() != nil {
			continue
		}
		key := rec.Package + " " + rec.Failure.Test
		if prev, ok := seen[key]; ok {
			rec.Schedule, rec.Explored = prev.Schedule, prev.Explored
			continue
		}
		seen[key] = rec
		if !r.f.json {
			fmt.Fprintf(r.err, "interleave stress: exploring %s %s with interleave test ...\n", rec.Package, rec.Failure.Test)
		}
		args := append(append([]string{"-json", "-p", strconv.Itoa(r.f.workers), "-run", "^" + regexp.QuoteMeta(rec.Failure.Test) + "$"}, r.f.buildFlags...), p.Dir)
		var out, errOut strings.Builder
		err := runTest(args, &out, &errOut)
		var final *jsonEvent
		var lines []string
		for _, line := range strings.Split(out.String(), "\n") {
			var e jsonEvent
			if json.Unmarshal([]byte(line), &e) != nil || e.Test != rec.Failure.Test {
				continue
			}
			switch e.Action {
			case "output":
				lines = append(lines, strings.TrimRight(e.Output, "\n"))
			case "pass", "fail", "skip":
				final = &e
			}
		}
		switch {
		case final != nil && final.Bug != nil:
			rec.Schedule = final.Bug.Schedule
			n := 0
			if final.Schedules != nil {
				n = *final.Schedules
			}
			rec.Explored = fmt.Sprintf("interleave test found a %s (%s) in %d schedules", final.Bug.Kind, final.Bug.Message, n)
		case final != nil:
			why := strings.TrimSpace(lastLines(strings.Join(lines, "\n"), 3))
			if len(rec.Failure.Together) > 0 {
				why += "\nthe failure needed " + strings.Join(rec.Failure.Together, ", ") + " running at the same time, which interleave test does not do"
			}
			rec.Explored = "interleave test found no bug: " + why
		default:
			msg := strings.TrimSpace(errOut.String())
			if err != nil && msg == "" {
				msg = err.Error()
			}
			rec.Explored = "interleave test could not explore it: " + lastLines(msg, 5)
		}
	}
}

// save writes each failure's record, and the run's summary, under .interleave/stress.
func (r *stressRun) save() error {
	stamp := r.started.UTC().Format("20060102T150405Z")
	for i, rec := range r.failures {
		schedules, err := store.ScheduleDir(rec.Dir)
		if err != nil {
			return fmt.Errorf("save the stress results: %w", err)
		}
		dir := filepath.Join(filepath.Dir(schedules), "stress")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("save the stress results: %w", err)
		}
		name := fmt.Sprintf("%s-%s-%s-%d.json", stamp, rec.Failure.Test, rec.Failure.Kind, i+1)
		b, _ := json.MarshalIndent(rec, "", "  ")
		path := filepath.Join(dir, name)
		if err := writeFileAtomic(path, append(b, '\n')); err != nil {
			return fmt.Errorf("save the stress results: %w", err)
		}
		rel := path
		if wd, err := os.Getwd(); err == nil {
			if p, err := filepath.Rel(wd, path); err == nil {
				rel = p
			}
		}
		if !r.f.json {
			fmt.Fprintf(r.out, "%s %s: saved %s (interleave stress -repro %s)\n", rec.Failure.Kind, rec.Failure.Test, rel, rel)
			if rec.Explored != "" {
				fmt.Fprintf(r.out, "%s\n", indentLines(rec.Explored, "    "))
			}
			if rec.Schedule != "" {
				fmt.Fprintf(r.out, "    schedule: %s (interleave replay %s)\n", rec.Schedule, rec.Schedule)
			}
		}
	}
	return nil
}

// summary prints per test its iterations, average duration and failures by kind, and per
// combination how many rounds ran it.
func (r *stressRun) summary() {
	if r.f.json {
		return
	}
	var pkgs []string
	for p := range r.tests {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		var names []string
		for n := range r.tests[pkg] {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(r.out, "%s\n", pkg)
		for _, n := range names {
			s := r.tests[pkg][n]
			avg := time.Duration(0)
			if s.Iterations > 0 {
				avg = s.Total / time.Duration(s.Iterations)
			}
			status := "ok"
			var kinds []string
			for k, v := range s.Failures {
				kinds = append(kinds, fmt.Sprintf("%d %s", v, k))
			}
			sort.Strings(kinds)
			if len(kinds) > 0 {
				status = "FAIL (" + strings.Join(kinds, ", ") + ")"
			}
			fmt.Fprintf(r.out, "    %-30s %8d iterations  avg %-10v total %-8v %s\n", n, s.Iterations, avg.Round(time.Microsecond), s.Total.Round(time.Millisecond), status)
		}
		var combos []string
		for c := range r.combos[pkg] {
			combos = append(combos, c)
		}
		sort.Strings(combos)
		for _, c := range combos {
			fmt.Fprintf(r.out, "    together %-40s %d rounds\n", c, r.combos[pkg][c])
		}
		if sp := r.spreads[pkg]; len(sp) > 0 {
			var parts []string
			for _, v := range sp {
				parts = append(parts, fmt.Sprintf("%.1f%%", 100*v))
			}
			fmt.Fprintf(r.out, "    melting pot: total time per test varies by %s (standard deviation / mean)\n", strings.Join(parts, ", "))
		}
	}
	if len(r.failures) == 0 {
		fmt.Fprintf(r.out, "ok: no failure in %v\n", time.Since(r.started).Round(time.Second))
	}
}

func readStressRecord(path string) (*stressRecord, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-repro: %w", err)
	}
	var rec stressRecord
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("-repro %s: not a stress record: %w", path, err)
	}
	if rec.Failure == nil || rec.Failure.Test == "" || rec.Dir == "" {
		return nil, fmt.Errorf("-repro %s: not a stress record: no failure, test or package directory", path)
	}
	return &rec, nil
}

// reproduce re-runs a recorded failure: its test (with the tests it ran beside) and its
// inputs, at its GOMAXPROCS, until the failure of the same kind recurs or -time is spent.
func (r *stressRun) reproduce(ctx context.Context, pkgs []*instrument.Package, rec *stressRecord, work string) error {
	var p *instrument.Package
	for _, q := range pkgs {
		if q.ImportPath == rec.Package || q.Dir == rec.Dir {
			p = q
		}
	}
	if p == nil || p.Binary == "" {
		return fmt.Errorf("-repro: package %s (%s) has no test binary", rec.Package, rec.Dir)
	}
	f := rec.Failure
	tests := append([]string{f.Test}, f.Together...)
	proc := &stressProc{pkg: p, phase: "repro", plan: stress.Plan{Tests: tests, Combine: len(tests), Seed: rec.Seed,
		Repro: &stress.Repro{Test: f.Test, Together: f.Together, Inputs: f.Inputs, GOMAXPROCS: f.GOMAXPROCS}}}
	fmt.Fprintf(r.err, "interleave stress: re-running %s %s (%s) with its inputs for up to %v\n", rec.Package, f.Test, f.Kind, r.f.budget)
	r.runAll(ctx, []*stressProc{proc}, r.f.budget, work)
	r.clearLine()
	for _, got := range r.failures {
		if got.Failure.Kind == f.Kind && got.Failure.Test == f.Test {
			fmt.Fprintf(r.out, "reproduced: %s of %s after %v\n", f.Kind, f.Test, got.Failure.Elapsed.Round(time.Millisecond))
			return errBug
		}
	}
	fmt.Fprintf(r.out, "not reproduced in %v: the failure depends on timing the inputs do not fix; run longer with -time\n", r.f.budget)
	return nil
}
