package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/bench"
	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/instrument"
)

func init() {
	commands = append(commands, command{"bench", "[flags] [benchmarks]", "run SCTBench-Go benchmarks under every strategy and compare with the paper", runBench})
}

const benchUsage = `usage: interleave bench [flags] [benchmarks]

Bench runs the SCTBench-Go suite (testdata/sctbench: the 49 benchmarks of the SCTBench study,
seed 004, and the toy programs) under every technique, one worker process per cell (benchmark ×
technique), and writes to -o: results.md and results.tsv (Tables III and IV of the study with the
published numbers beside ours, time per schedule, the native runs and the slowdown), figure4.svg
and figure4.png (the study's Figure 4: bugs found after x schedules), and results.json (what
-render reads). The summary, bugs found per technique out of the 49, goes to stdout; progress to
stderr.

Benchmarks are packages of the suite (cs/account_bad), globs (cs/*), prefixes (chess/...), paper
names (CS.account_bad) or ids (3); none means all. Techniques (-techniques, comma-separated):
%s.

Every cell counts every buggy schedule up to -limit (no stop at the first bug, no
minimization); randomized cells all use -seed, hence one list of per-execution seeds (§5). IPB
and IDB explore bound after bound (max=0, 1, ...) until the bound of the first bug is finished,
the limit is reached or the space is exhausted (§5).

Flags:
`

// benchFlags are the flags of interleave bench.
type benchFlags struct {
	limit         int
	techniques    string
	workers       int
	out           string
	native        int
	nativeTimeout time.Duration
	nativeTime    time.Duration
	cellTime      time.Duration
	maxSteps      int
	seed          uint64
	points        string
	json          bool
	suite         string
	paper         string
	render        string
	patterns      []string
}

func parseBenchFlags(args []string, stderr io.Writer) (*benchFlags, error) {
	f := &benchFlags{}
	fs := newFlagSet("bench", stderr)
	fs.IntVar(&f.limit, "limit", bench.DefaultLimit, "schedule limit per cell (the study's is 100000)")
	fs.StringVar(&f.techniques, "techniques", "all", "techniques to run, comma-separated")
	fs.IntVar(&f.workers, "p", runtime.NumCPU(), "worker processes run at once")
	fs.StringVar(&f.out, "o", "bench-results", "directory for the results")
	fs.IntVar(&f.native, "native", 1000, "runs of each benchmark without control for the native column (0 skips it)")
	fs.DurationVar(&f.nativeTimeout, "native-timeout", 2*time.Second, "a native run taking longer hangs: it is stopped and counted as buggy")
	fs.DurationVar(&f.nativeTime, "native-time", 30*time.Second, "time budget of one benchmark's native runs")
	fs.DurationVar(&f.cellTime, "cell-time", 3*time.Minute, "time budget of one cell; a cell cut short is reported as such")
	fs.IntVar(&f.maxSteps, "max-steps", 0, "step bound of an execution, past which it is reported as a livelock (0: the harness default)")
	fs.Uint64Var(&f.seed, "seed", 1, "initial seed of the randomized techniques, the same for every cell")
	fs.StringVar(&f.points, "points", "", "scheduling points (INTERLEAVE_POINTS: sync, all, racy; empty: the harness default)")
	fs.BoolVar(&f.json, "json", false, "print the results as JSON on stdout instead of the summary")
	fs.StringVar(&f.suite, "suite", "", "the SCTBench-Go module (default: testdata/sctbench of the enclosing interleave checkout)")
	fs.StringVar(&f.paper, "paper", "", "directory of sctbench-paper-systematic.tsv and sctbench-paper-randomized.tsv (default: the suite's paper/)")
	fs.StringVar(&f.render, "render", "", "render the tables and the plot of a results.json into -o, running nothing")
	fs.Usage = func() {
		var keys []string
		for _, t := range bench.Techniques {
			keys = append(keys, fmt.Sprintf("%s (%s)", t.Key, t.Label))
		}
		fmt.Fprintf(stderr, benchUsage, strings.Join(keys, ", "))
		fs.PrintDefaults()
	}
	// Flags and benchmarks in any order.
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		args = fs.Args()
		for len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			f.patterns = append(f.patterns, args[0])
			args = args[1:]
		}
		if len(args) == 0 {
			break
		}
	}
	switch {
	case f.limit < 1:
		return nil, fmt.Errorf("%w: -limit %d: want at least 1 schedule", errUsage, f.limit)
	case f.workers < 1:
		return nil, fmt.Errorf("%w: -p %d: want at least 1 worker", errUsage, f.workers)
	case f.native < 0:
		return nil, fmt.Errorf("%w: -native %d: want a number of runs (0 skips them)", errUsage, f.native)
	case f.cellTime <= 0:
		return nil, fmt.Errorf("%w: -cell-time %v: want a positive duration", errUsage, f.cellTime)
	}
	switch f.points {
	case "", "sync", "all", "racy":
	default:
		return nil, fmt.Errorf("%w: -points %q: want sync, all or racy", errUsage, f.points)
	}
	if _, err := bench.SelectTechniques(f.techniques); err != nil {
		return nil, fmt.Errorf("%w: -techniques: %v", errUsage, err)
	}
	return f, nil
}

func runBench(args []string, stdout, stderr io.Writer) error {
	f, err := parseBenchFlags(args, stderr)
	if err != nil {
		return err
	}
	if f.render != "" {
		return renderSaved(f, stdout)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	b, err := newBencher(f, args, stderr)
	if err != nil {
		return err
	}
	defer os.RemoveAll(b.work)
	run, runErr := b.run(ctx)
	if run == nil {
		return runErr
	}
	if err := writeResults(f.out, run, b.paper); err != nil {
		return err
	}
	if f.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "\t")
		if err := enc.Encode(run); err != nil {
			return err
		}
	} else {
		fmt.Fprint(stdout, run.Summary())
		fmt.Fprintf(stdout, "results in %s\n", f.out)
	}
	if run.Interrupt != "" {
		return fmt.Errorf("run incomplete (%s); what finished is in %s", run.Interrupt, f.out)
	}
	return runErr
}

// renderSaved renders a results.json of an earlier run (-render) into -o.
func renderSaved(f *benchFlags, stdout io.Writer) error {
	data, err := os.ReadFile(f.render)
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	var run bench.Run
	if err := json.Unmarshal(data, &run); err != nil {
		return fmt.Errorf("render %s: %w", f.render, err)
	}
	paper, err := loadPaper(f, filepath.Dir(f.render))
	if err != nil {
		return err
	}
	if err := writeResults(f.out, &run, paper); err != nil {
		return err
	}
	fmt.Fprint(stdout, run.Summary())
	return nil
}

// loadPaper loads the published tables from -paper, or else from the suite's paper/
// directory; near is where to start looking for the suite.
func loadPaper(f *benchFlags, near string) (*bench.Paper, error) {
	dir := f.paper
	if dir == "" {
		suite := f.suite
		if suite == "" {
			var err error
			if suite, err = findSuite(near); err != nil {
				return nil, err
			}
		}
		dir = filepath.Join(suite, "paper")
	}
	return bench.LoadPaper(filepath.Join(dir, "sctbench-paper-systematic.tsv"), filepath.Join(dir, "sctbench-paper-randomized.tsv"))
}

// findSuite finds testdata/sctbench in dir or one of its parents.
func findSuite(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		for _, cand := range []string{d, filepath.Join(d, "testdata", "sctbench")} {
			if data, err := os.ReadFile(filepath.Join(cand, "go.mod")); err == nil && strings.HasPrefix(string(data), "module sctbench") {
				return cand, nil
			}
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no SCTBench-Go suite (testdata/sctbench) in %s or its parents; give -suite", abs)
		}
	}
}

// writeResults writes results.json, results.md, results.tsv, figure4.svg and figure4.png.
func writeResults(dir string, run *bench.Run, paper *bench.Paper) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if err := saveRunJSON(filepath.Join(dir, "results.json"), run); err != nil {
		return err
	}
	for _, out := range []struct {
		name   string
		render func(io.Writer, *bench.Run, *bench.Paper) error
	}{{"results.md", bench.Markdown}, {"results.tsv", bench.TSV}} {
		path := filepath.Join(dir, out.name)
		fh, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("results: %w", err)
		}
		err = out.render(fh, run, paper)
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("results: write %s: %w", path, err)
		}
	}
	return bench.SaveFigure4(run, paper, filepath.Join(dir, "figure4.svg"), filepath.Join(dir, "figure4.png"))
}

// saveRunJSON writes the run atomically, so that a run killed while writing keeps the last
// complete file.
func saveRunJSON(path string, run *bench.Run) error {
	data, err := json.MarshalIndent(run, "", "\t")
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// bencher runs one interleave bench.
type bencher struct {
	f          *benchFlags
	suite      string
	paper      *bench.Paper
	benchmarks []bench.Benchmark
	techniques []bench.Technique
	work       string
	stderr     io.Writer
	result     *bench.Run

	mu       sync.Mutex // guards run and the progress count
	done     int
	total    int
	started  time.Time
	errOut   sync.Mutex
	problems int
}

func newBencher(f *benchFlags, args []string, stderr io.Writer) (*bencher, error) {
	suite := f.suite
	if suite == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		if suite, err = findSuite(wd); err != nil {
			return nil, err
		}
	}
	suite, err := filepath.Abs(suite)
	if err != nil {
		return nil, err
	}
	paper, err := loadPaper(f, suite)
	if err != nil {
		return nil, err
	}
	dirs, err := suitePackages(suite)
	if err != nil {
		return nil, err
	}
	all := bench.Benchmarks(paper, dirs)
	selected, err := bench.SelectBenchmarks(all, f.patterns)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	techniques, err := bench.SelectTechniques(f.techniques)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	work, err := os.MkdirTemp("", "interleave-bench-")
	if err != nil {
		return nil, err
	}
	b := &bencher{f: f, suite: suite, paper: paper, benchmarks: selected, techniques: techniques, work: work, stderr: stderr, started: time.Now()}
	b.result = &bench.Run{
		Version:    1,
		Command:    "interleave bench " + strings.Join(args, " "),
		Started:    b.started.UTC().Format(time.RFC3339),
		Limit:      f.limit,
		Seed:       f.seed,
		Points:     f.points,
		CellTime:   f.cellTime.String(),
		Native:     f.native,
		MaxSteps:   f.maxSteps,
		Workers:    f.workers,
		CPUs:       runtime.NumCPU(),
		GoVersion:  runtime.Version(),
		Revision:   gitRevision(suite),
		Benchmarks: selected,
	}
	for _, t := range techniques {
		b.result.Techniques = append(b.result.Techniques, t.Key)
	}
	return b, nil
}

// gitRevision is the commit of the checkout dir is in, with "+dirty" when a tracked file has
// uncommitted changes; "" when dir is not in a git checkout.
func gitRevision(dir string) string {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return ""
	}
	rev := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		rev += "+dirty"
	}
	return rev
}

// suitePackages lists the suite's test packages, slash-separated, relative to the suite.
func suitePackages(suite string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(suite, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != suite && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "results") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), "_test.go") {
			rel, err := filepath.Rel(suite, filepath.Dir(path))
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			if len(dirs) == 0 || dirs[len(dirs)-1] != rel {
				dirs = append(dirs, rel)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the suite's packages in %s: %w", suite, err)
	}
	sort.Strings(dirs)
	return dirs, nil
}

func (b *bencher) logf(format string, args ...any) {
	b.errOut.Lock()
	defer b.errOut.Unlock()
	fmt.Fprintf(b.stderr, "bench: "+format+"\n", args...)
}

// built is a benchmark's test binaries: the instrumented one with its test, and the native one.
type built struct {
	pkg      *instrument.Package // instrumented; nil when its build failed
	test     string
	buildErr string
	native   string // the native test binary; "" when not built
	nativeEr string
}

// run builds everything and runs every cell; on an interruption it returns what finished.
func (b *bencher) run(ctx context.Context) (*bench.Run, error) {
	b.logf("%d benchmarks × %d techniques, limit %d, %d workers; building ...", len(b.benchmarks), len(b.techniques), b.f.limit, b.f.workers)
	builds := b.buildAll(ctx)
	if ctx.Err() != nil {
		b.result.Interrupt = "interrupted while building"
		return b.result, nil
	}
	type job struct {
		bm     bench.Benchmark
		t      *bench.Technique // nil: the native runs
		builds *built
	}
	var jobs []job
	for _, bm := range b.benchmarks {
		bl := builds[bm.Package]
		if b.f.native > 0 {
			jobs = append(jobs, job{bm, nil, bl})
		}
		for i := range b.techniques {
			jobs = append(jobs, job{bm, &b.techniques[i], bl})
		}
	}
	b.total = len(jobs)
	b.logf("built in %.0f s; running %d jobs", time.Since(b.started).Seconds(), len(jobs))
	queue := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < b.f.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range queue {
				if j.t == nil {
					n := b.runNative(ctx, j.bm, j.builds)
					b.addNative(n)
					continue
				}
				c := b.runCell(ctx, j.bm, *j.t, j.builds)
				b.addCell(j.bm, *j.t, c)
			}
		}()
	}
	skipped := 0
feed:
	for i, j := range jobs {
		select {
		case queue <- j:
		case <-ctx.Done():
			skipped = len(jobs) - i
			break feed
		}
	}
	close(queue)
	wg.Wait()
	b.result.Seconds = time.Since(b.started).Seconds()
	if ctx.Err() != nil {
		b.result.Interrupt = fmt.Sprintf("interrupted after %d of %d jobs (%d not started)", b.done, b.total, skipped)
	}
	return b.result, nil
}

func (b *bencher) addCell(bm bench.Benchmark, t bench.Technique, c bench.Cell) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.result.Cells = append(b.result.Cells, c)
	b.done++
	var what string
	switch {
	case c.Error != "":
		what = "error: " + firstLine(c.Error)
	case c.StepBound():
		what = fmt.Sprintf("step bound (livelock report) at %d, %d buggy of %d", c.FirstBug, c.Buggy, c.Schedules)
	case c.Found():
		what = fmt.Sprintf("1st bug at %d, %d buggy of %d", c.FirstBug, c.Buggy, c.Schedules)
	default:
		what = fmt.Sprintf("no bug in %d", c.Schedules)
	}
	if t.Kind == bench.Iterative {
		what += fmt.Sprintf(", bound %d", c.Bound)
	}
	if c.Stopped == "time" {
		what += ", cut short by -cell-time"
	}
	b.logf("[%d/%d] %s × %s: %s (%.1f s)", b.done, b.total, bm.Package, t.Label, what, c.Seconds)
	b.checkpoint()
}

func (b *bencher) addNative(n bench.Native) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.result.Natives = append(b.result.Natives, n)
	b.done++
	what := fmt.Sprintf("%d buggy of %d runs, %.1f µs/run", n.Buggy, n.Runs, n.PerRun()*1e6)
	if n.Error != "" {
		what += "; " + firstLine(n.Error)
	}
	b.logf("[%d/%d] %s native: %s", b.done, b.total, n.Benchmark, what)
	b.checkpoint()
}

// checkpoint saves results.json after every job, so that a run killed outright keeps what
// finished (interleave bench -render renders it). b.mu is held.
func (b *bencher) checkpoint() {
	b.result.Seconds = time.Since(b.started).Seconds()
	if err := os.MkdirAll(b.f.out, 0o755); err == nil {
		if err := saveRunJSON(filepath.Join(b.f.out, "results.json"), b.result); err != nil {
			b.logf("checkpoint: %v", err)
		}
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// buildAll builds every selected benchmark, instrumented and (with -native) natively. The
// instrumented packages are built in -p groups at once; a group whose build fails is built
// again package by package, so that one broken benchmark only fails its own cells.
func (b *bencher) buildAll(ctx context.Context) map[string]*built {
	out := map[string]*built{}
	var mu sync.Mutex
	for _, bm := range b.benchmarks {
		out[bm.Package] = &built{}
	}
	groups := make([][]string, min(b.f.workers, len(b.benchmarks)))
	for i, bm := range b.benchmarks {
		groups[i%len(groups)] = append(groups[i%len(groups)], bm.Package)
	}
	var wg sync.WaitGroup
	for gi, g := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := b.buildInstrumented(ctx, fmt.Sprintf("group%d", gi), g)
			if err != nil && len(g) > 1 && ctx.Err() == nil {
				b.logf("building %d benchmarks together failed; building them one by one", len(g))
				for i, pkg := range g {
					r, err := b.buildInstrumented(ctx, fmt.Sprintf("group%d-%d", gi, i), []string{pkg})
					mu.Lock()
					b.record(out, []string{pkg}, r, err)
					mu.Unlock()
				}
				return
			}
			mu.Lock()
			b.record(out, g, res, err)
			mu.Unlock()
		}()
	}
	if b.f.native > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.buildNative(ctx, out, &mu)
		}()
	}
	wg.Wait()
	// The test of each instrumented binary.
	for _, bm := range b.benchmarks {
		bl := out[bm.Package]
		if bl.pkg == nil {
			continue
		}
		tests, err := listTests(ctx, bl.pkg, "")
		switch {
		case err != nil:
			bl.buildErr = err.Error()
		case len(tests) != 1:
			bl.buildErr = fmt.Sprintf("want one test in %s, found %d (%s)", bm.Package, len(tests), strings.Join(tests, ", "))
		default:
			bl.test = tests[0]
		}
	}
	return out
}

func (b *bencher) buildInstrumented(ctx context.Context, name string, pkgs []string) (*instrument.Result, error) {
	var patterns []string
	for _, p := range pkgs {
		patterns = append(patterns, "./"+p)
	}
	return instrument.Build(ctx, instrument.Config{Dir: b.suite, Patterns: patterns, Work: filepath.Join(b.work, name)})
}

// record files the instrumented packages of one build under their benchmarks, or the build's
// error.
func (b *bencher) record(out map[string]*built, pkgs []string, res *instrument.Result, err error) {
	if err != nil {
		msg := err.Error()
		var ie *instrument.Error
		if errors.As(err, &ie) {
			msg = ie.Op + " failed: " + strings.TrimSpace(ie.Detail)
		}
		for _, p := range pkgs {
			out[p].buildErr = msg
		}
		b.logf("build %s: %s", strings.Join(pkgs, " "), firstLine(msg))
		return
	}
	if len(res.Problems) > 0 {
		b.problems += len(res.Problems)
		for _, p := range res.Problems {
			b.logf("not instrumented: %s: %s", p.Pos, p.Msg)
		}
	}
	byPath := map[string]*instrument.Package{}
	for _, p := range res.Packages {
		byPath[p.ImportPath] = p
	}
	for _, p := range pkgs {
		ip := byPath["sctbench/"+p]
		switch {
		case ip == nil:
			out[p].buildErr = "the build made no test binary for " + p
		case ip.Binary == "":
			out[p].buildErr = p + " has no test files"
		default:
			out[p].pkg = ip
		}
	}
}

// buildNative builds the uninstrumented test binaries with go test -c, one go command per
// package, -p at once.
func (b *bencher) buildNative(ctx context.Context, out map[string]*built, mu *sync.Mutex) {
	dir := filepath.Join(b.work, "native")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		mu.Lock()
		for _, bm := range b.benchmarks {
			out[bm.Package].nativeEr = err.Error()
		}
		mu.Unlock()
		return
	}
	binary := func(pkg string) string { return filepath.Join(dir, strings.ReplaceAll(pkg, "/", "_")+".test") }
	goTestC := func(pkg string) error {
		cmd := exec.CommandContext(ctx, "go", "test", "-c", "-o", binary(pkg), "./"+pkg)
		cmd.Dir = b.suite
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if outp, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go test -c ./%s: %v\n%s", pkg, err, outp)
		}
		return nil
	}
	// One go command per package, -p of them at once: the go command builds one package's
	// test binary per invocation with -o FILE.
	sem := make(chan struct{}, b.f.workers)
	var wg sync.WaitGroup
	for _, bm := range b.benchmarks {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			err := goTestC(bm.Package)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				out[bm.Package].nativeEr = err.Error()
				b.logf("native build of %s failed: %s", bm.Package, firstLine(err.Error()))
				return
			}
			out[bm.Package].native = binary(bm.Package)
		}()
	}
	wg.Wait()
}

// cellEnv is the INTERLEAVE_* environment of one cell's test binary.
func (b *bencher) cellEnv(bm bench.Benchmark, t bench.Technique, strategyArg string, budget time.Duration) []string {
	env := []string{
		"INTERLEAVE_STRATEGY=" + strategyArg,
		"INTERLEAVE_SCHEDULES=" + strconv.Itoa(b.f.limit),
		"INTERLEAVE_SEED=" + strconv.FormatUint(b.f.seed, 10),
		"INTERLEAVE_KEEP_GOING=1",
		"INTERLEAVE_MINIMIZE=0",
		"INTERLEAVE_TIME=" + budget.String(),
		"INTERLEAVE_SCHEDULE_DIR=" + filepath.Join(b.work, "schedules", strings.ReplaceAll(bm.Package, "/", "_"), t.Key),
		"INTERLEAVE_REPLAY=",
		"INTERLEAVE_DEBUG=",
		// The study's techniques have no fairness rule: only yields force a switch (§3).
		"INTERLEAVE_FAIR_STEPS=-1",
	}
	if b.f.points != "" {
		env = append(env, "INTERLEAVE_POINTS="+b.f.points)
	}
	if b.f.maxSteps != 0 {
		env = append(env, "INTERLEAVE_MAX_STEPS="+strconv.Itoa(b.f.maxSteps))
	}
	return env
}

// exploreOnce runs the cell's test binary once with the given strategy and time budget. The
// binary stops itself at the budget (INTERLEAVE_TIME); it is interrupted if it is still running
// a minute later. When it ends without a result, the last progress event says how far it got.
func (b *bencher) exploreOnce(ctx context.Context, bm bench.Benchmark, t bench.Technique, bl *built, strategyArg string, budget time.Duration) (*explore.Event, *explore.Event, error) {
	cctx, cancel := context.WithTimeout(ctx, budget+time.Minute)
	defer cancel()
	var last *explore.Event
	res, _, err := execTest(cctx, bl.pkg, bl.test, b.cellEnv(bm, t, strategyArg, budget), func(e *explore.Event) { last = e })
	if err != nil && cctx.Err() != nil && ctx.Err() == nil {
		err = fmt.Errorf("killed %v after its time budget: %w", time.Minute, err)
	}
	return res, last, err
}

// runCell runs one technique on one benchmark.
func (b *bencher) runCell(ctx context.Context, bm bench.Benchmark, t bench.Technique, bl *built) bench.Cell {
	c := bench.Cell{Benchmark: bm.Package, Technique: t.Key, Strategy: t.StrategyArg()}
	if bl.pkg == nil || bl.test == "" {
		c.Error = "build: " + bl.buildErr
		c.Stopped = "error"
		return c
	}
	if ctx.Err() != nil {
		c.Stopped, c.Error = "canceled", "not run: interrupted"
		return c
	}
	if t.Kind == bench.Iterative {
		return b.runIterative(ctx, bm, t, bl, c)
	}
	res, last, err := b.exploreOnce(ctx, bm, t, bl, c.Strategy, b.f.cellTime)
	fillCell(&c, res, last, err, ctx)
	return c
}

// fillCell copies a result event (or, without one, the last progress and the error) into c.
func fillCell(c *bench.Cell, res, last *explore.Event, err error, ctx context.Context) {
	if err != nil || res == nil {
		if last != nil {
			c.Schedules, c.Seconds = last.Schedules, last.Elapsed
		}
		c.Stopped = "error"
		if ctx.Err() != nil {
			c.Stopped = "canceled"
		}
		if err == nil {
			err = errors.New("no result")
		}
		c.Error = err.Error()
		return
	}
	c.Schedules, c.Buggy, c.FirstBug = res.Schedules, res.Buggy, res.FirstBug
	c.MaxGoroutines, c.MaxSteps, c.Seconds = res.MaxGoroutines, res.MaxSteps, res.Elapsed
	c.Stopped, c.Exhausted = res.Stopped, res.Exhausted
	if res.Bug != nil {
		c.BugKind, c.BugMsg = res.Bug.Kind, firstLine(res.Bug.Message)
	}
	if res.Error != "" {
		c.Error = res.Error
	}
}

// runIterative runs IPB or IDB as the study did (§5, "Iterative Preemption Bounding (IPB)
// Phase"): every schedule with bound 0, then bound 1, and so on; when a bug is found, the rest
// of its bound is still explored, and the search stops there. The strategy explores the bounds
// in this order without repeating a schedule; to learn where one bound ends, each bound c is a
// run of its own with max=c (which explores bounds 0..c as the unbounded search would, then
// stops), and the cell reports the last run: the bound reached, the schedules to the first bug,
// the schedules up to and including that bound, those of exactly that bound ("new", Table III)
// and the buggy ones. The repeated lower bounds cost time, not schedules of the reported count.
// Any buggy schedule ends the search at its bound, one that ran into the step bound too (the
// tables show that one apart).
func (b *bencher) runIterative(ctx context.Context, bm bench.Benchmark, t bench.Technique, bl *built, c bench.Cell) bench.Cell {
	deadline := time.Now().Add(b.f.cellTime)
	before := 0 // schedules with a smaller bound
	for bound := 0; ; bound++ {
		left := time.Until(deadline)
		if left <= 0 {
			c.Stopped = "time"
			return c
		}
		params := map[string]string{"max": strconv.Itoa(bound)}
		for k, v := range t.Params {
			params[k] = v
		}
		arg := bench.Technique{Strategy: t.Strategy, Params: params}.StrategyArg()
		res, last, err := b.exploreOnce(ctx, bm, t, bl, arg, left)
		maxG, maxS := c.MaxGoroutines, c.MaxSteps
		fillCell(&c, res, last, err, ctx)
		c.MaxGoroutines, c.MaxSteps = max(maxG, c.MaxGoroutines), max(maxS, c.MaxSteps)
		c.Bound, c.NewSchedules = bound, c.Schedules-before
		if c.Error != "" || c.FirstBug > 0 || c.Stopped != "exhausted" || strings.Contains(c.Exhausted, "whole schedule space") {
			return c
		}
		before = c.Schedules
	}
}

// runNative runs the uninstrumented test binary -native times (PERIOD's native column):
// processes of -test.count runs each, a new one for the runs left after a crash or a hang.
func (b *bencher) runNative(ctx context.Context, bm bench.Benchmark, bl *built) bench.Native {
	tally := bench.NewNativeTally(bm.Package, bl.test, b.f.native)
	switch {
	case bl.native == "":
		tally.Error = "build: " + bl.nativeEr
		return tally.Native
	case bl.test == "":
		// The test's name comes from the instrumented binary's list; the native binary lists
		// the same tests.
		tests, err := listNativeTests(ctx, bl.native, filepath.Join(b.suite, bm.Package))
		if err != nil || len(tests) != 1 {
			tally.Error = fmt.Sprintf("list tests: %v %v", err, tests)
			return tally.Native
		}
		tally = bench.NewNativeTally(bm.Package, tests[0], b.f.native)
	}
	deadline := time.Now().Add(b.f.nativeTime)
	for tally.Left() > 0 && ctx.Err() == nil {
		if time.Now().After(deadline) {
			tally.Error = fmt.Sprintf("native time budget %v reached", b.f.nativeTime)
			break
		}
		startedRuns := tally.Runs
		if err := b.nativeProcess(ctx, bl, bm, tally, deadline); err != nil {
			tally.Error = err.Error()
			break
		}
		if tally.Runs == startedRuns {
			tally.Error = "a native process ran no test"
			break
		}
	}
	return tally.Native
}

func listNativeTests(ctx context.Context, binary, dir string) ([]string, error) {
	cmd := exec.CommandContext(ctx, binary, "-test.list", ".")
	cmd.Dir = dir
	outp, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(outp)), nil
}

// nativeProcess runs one process of native runs and counts them in tally. A run that does not
// end within -native-timeout is a hang: the process is killed and the run counted as buggy.
func (b *bencher) nativeProcess(ctx context.Context, bl *built, bm bench.Benchmark, tally *bench.NativeTally, deadline time.Time) error {
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(pctx, bl.native, "-test.run", "^"+regexp.QuoteMeta(tally.Test())+"$",
		"-test.count", strconv.Itoa(tally.Left()), "-test.v", "-test.timeout=0")
	cmd.Dir = filepath.Join(b.suite, bm.Package)
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	runsBefore := tally.Runs
	if err := cmd.Start(); err != nil {
		pw.Close()
		pr.Close()
		return fmt.Errorf("start %s: %w", bl.native, err)
	}
	pw.Close()
	lines := make(chan string, 256)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	hang := time.NewTimer(b.f.nativeTimeout)
	defer hang.Stop()
	budget := time.NewTimer(time.Until(deadline))
	defer budget.Stop()
	completed := 0
	var firstStart, lastEnd time.Time
	var tail []string
	killed := false
loop:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				break loop
			}
			if len(tail) < 40 {
				tail = append(tail, line)
			}
			switch tally.Line(line) {
			case bench.NativeStart:
				if firstStart.IsZero() {
					firstStart = time.Now()
				}
				hang.Reset(b.f.nativeTimeout)
			case bench.NativePass, bench.NativeFail:
				completed++
				lastEnd = time.Now()
			}
		case <-hang.C:
			if tally.Running() {
				tally.Hung()
				killed = true
				cancel()
			} else {
				hang.Reset(b.f.nativeTimeout)
			}
		case <-budget.C:
			tally.Abandon()
			killed = true
			cancel()
		}
	}
	waitErr := cmd.Wait()
	pr.Close()
	if tally.Running() {
		tally.Crashed()
	}
	// The runs that completed took the time from the first one's start to the last one's
	// end, as the pipe shows them: the process's start-up and exit are not in it.
	if completed > 0 {
		tally.Seconds += lastEnd.Sub(firstStart).Seconds()
		tally.Timed += completed
	}
	if waitErr != nil && !killed && tally.Runs == runsBefore && ctx.Err() == nil {
		return fmt.Errorf("native run of %s: %v: %s", bm.Package, waitErr, strings.Join(tail, "\n"))
	}
	return nil
}
