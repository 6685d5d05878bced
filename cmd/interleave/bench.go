package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/atomicfile"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/bench"
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
	ctx, stop := stopContext()
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
	if err := atomicfile.Write(path, append(data, '\n')); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}
