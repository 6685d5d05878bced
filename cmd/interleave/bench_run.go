package main

// The run phase of interleave bench: the bencher, the suite's packages, and the order in
// which cells run and are recorded.

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/bench"
	"github.com/interleave-dev/interleave/engine/instrument"
)

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
	work, err := instrument.WorkDir("interleave-bench")
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
