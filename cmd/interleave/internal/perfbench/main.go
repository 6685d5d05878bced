// Perfbench measures what a user of interleave test waits for and the memory it takes, each
// figure next to its native counterpart measured in the same run, and prints a Markdown table
// (issue 19's benchmark set):
//
//   - start-up: interleave test against go test -count=1 on one small test, warm (caches
//     full, nothing changed); with -cold, also on fresh build caches for both;
//   - per schedule: the tests of testdata/perf (10, 1,000 and 10,000 goroutines contending for
//     a mutex; 1,025 goroutines at most 10 at a time, as errgroup's TestGoLimit; 10 MB and 1 GB
//     allocated by 4 goroutines), interleave test's exploration time per schedule (its JSON
//     result's Elapsed / Schedules, random walk, default points and race detection; the
//     many-goroutine tests under the default strategy too, the portfolio whose members each
//     have their own cost per step) against the native test binary's time per run
//     (-test.count), and the exploring process's peak resident memory (the result's
//     PeakMemory) against the native test binary's;
//   - the floor of the design: the many-goroutine cases against a program that only switches
//     between as many goroutines, as many times, the engine's way (channel handoffs, in the
//     contending goroutines' own shape where it is theirs) and by
//     coroutines (testdata/perf's floor_test.go);
//   - the engine's hot path: go test -bench 'Ratios|RaceDetector|ManyGoroutines|LimitedGroup' in engine,
//     whose figures are ratios measured in that one run.
//
// Run it from the repository root (about two minutes, four with -cold):
//
//	go run ./cmd/interleave/internal/perfbench -o testdata/perf/perfbench.md
//
// Every figure is the median of -reps runs (default 3), native and interleave alternated.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/benchcmd"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// perfCase is one test of testdata/perf with the budget each side gets.
type perfCase struct {
	test      string
	what      string
	schedules int // interleave test's schedules (and race-detection runs)
	count     int // native runs
	// strategy is interleave test's -strategy, "" for the default (the portfolio, whose
	// members take one execution each in turn at first).
	strategy string
	// floor is the test of testdata/perf that is the handoff floor of the case's shape
	// (writeFloors), "" for none.
	floor string
}

var cases = []perfCase{
	{"TestGoroutines10", "10 goroutines", 2000, 2000, "random", "TestContendFloor"},
	// Enough schedules that the first executions, where the engine's and the strategies'
	// tables grow from empty, are not most of them (the default strategy's members take one
	// execution each in turn: 24 is four of each), and enough native runs that one of
	// them, with a garbage collection, does not weigh much: a native run of 10,000
	// goroutines took 2.4 to 3.5 ms in one perfbench run with 20.
	{"TestGoroutines1000", "1,000 goroutines", 300, 2000, "random", "TestContendFloor"},
	{"TestGoroutines10000", "10,000 goroutines", 24, 200, "random", "TestContendFloor"},
	{"TestLimitedGroup1025", "1,025 goroutines, 10 at a time", 300, 2000, "random", "TestHandoffFloor"},
	{"TestGoroutines1000", "1,000 goroutines, default strategy", 300, 2000, "", "TestContendFloor"},
	{"TestGoroutines10000", "10,000 goroutines, default strategy", 24, 200, "", "TestContendFloor"},
	{"TestLimitedGroup1025", "1,025 goroutines, 10 at a time, default strategy", 300, 2000, "", "TestHandoffFloor"},
	// A whole run at interleave test's default budget: what a search keeps from one execution
	// to the next shows in its peak memory only over thousands of schedules.
	{"TestGoroutines1000", "1,000 goroutines, default strategy, default budget", 10000, 1000, "", ""},
	{"TestAllocate10MB", "10 MB allocated", 100, 100, "random", ""},
	{"TestAllocate1GB", "1 GB allocated", 3, 3, "random", ""},
}

// measure is one run of a command: its wall time, and the peak resident memory of the largest
// process of its tree.
type measure struct {
	wall time.Duration
	peak int64 // bytes
}

type bench struct {
	root, perfDir, tmp string
	interleave, native string
	reps               int
	commands           []string
}

func main() {
	if len(os.Args) > 2 && os.Args[1] == measureFlag {
		measureChild(os.Args[2:])
		return
	}
	reps := flag.Int("reps", 3, "runs of each measurement; the table shows the median")
	cold := flag.Bool("cold", false, "measure the start-up on fresh build caches too")
	out := flag.String("o", "", "write the table to `file` too")
	flag.Parse()
	if flag.NArg() > 0 || *reps < 1 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var report bytes.Buffer
	if err := run(ctx, &report, *reps, *cold); err != nil {
		fmt.Fprintf(os.Stderr, "perfbench: %v\n", err)
		os.Exit(1)
	}
	os.Stdout.Write(report.Bytes())
	if *out != "" {
		if err := os.WriteFile(*out, report.Bytes(), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "perfbench: %v\n", err)
			os.Exit(1)
		}
	}
}

func run(ctx context.Context, w io.Writer, reps int, cold bool) error {
	root, err := benchcmd.FindRoot(filepath.Join("testdata", "perf"))
	if err != nil {
		return err
	}
	b := &bench{root: root, perfDir: filepath.Join(root, "testdata", "perf"), reps: reps}
	if b.tmp, err = os.MkdirTemp("", "perfbench-"); err != nil {
		return err
	}
	defer os.RemoveAll(b.tmp)
	started := time.Now()
	goVersion, _ := exec.Command("go", "version").Output()
	b.interleave = filepath.Join(b.tmp, "interleave")
	b.native = filepath.Join(b.tmp, "perf.test")
	if _, err := b.run(ctx, root, nil, "go", "build", "-o", b.interleave, "./cmd/interleave"); err != nil {
		return err
	}
	if _, err := b.run(ctx, b.perfDir, nil, "go", "test", "-c", "-o", b.native, "."); err != nil {
		return err
	}

	fmt.Fprintf(w, "# interleave test against go test: start-up, time per schedule, memory\n\n")
	fmt.Fprintf(w, "Measured by `go run ./cmd/interleave/internal/perfbench` on %s, %s, %d CPUs; each figure is the median of %d runs, native and interleave alternated.\n\n",
		started.UTC().Format("2006-01-02"), strings.TrimSpace(string(goVersion)), runtime.NumCPU(), reps)

	if err := b.startup(ctx, w, cold); err != nil {
		return err
	}
	if err := b.perSchedule(ctx, w); err != nil {
		return err
	}
	if err := b.engineRatios(ctx, w); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n## Commands\n\n```\n%s\n```\n\nTotal time of the benchmark: %s.\n", strings.Join(b.commands, "\n"), time.Since(started).Round(time.Second))
	return nil
}

// startup times one small test run the way a user runs it, interleave test against go test.
func (b *bench) startup(ctx context.Context, w io.Writer, cold bool) error {
	const test = "^TestGoroutines10$"
	il := []string{b.interleave, "test", "-run", test, "-schedules", "1", "-p", "1", "."}
	gt := []string{"go", "test", "-count=1", "-run", test, "."}
	// Fill the caches first.
	if _, err := b.run(ctx, b.perfDir, nil, il[0], il[1:]...); err != nil {
		return err
	}
	if _, err := b.run(ctx, b.perfDir, nil, gt[0], gt[1:]...); err != nil {
		return err
	}
	fmt.Fprintf(w, "## Start-up: one test, one schedule\n\n| | interleave test | go test -count=1 | ratio (time) | ratio (memory) |\n| --- | --- | --- | --- | --- |\n")
	var ils, gts []measure
	for range b.reps {
		m, err := b.run(ctx, b.perfDir, nil, il[0], il[1:]...)
		if err != nil {
			return err
		}
		ils = append(ils, m)
		if m, err = b.run(ctx, b.perfDir, nil, gt[0], gt[1:]...); err != nil {
			return err
		}
		gts = append(gts, m)
	}
	row(w, "warm", ils, gts)
	if cold {
		ils, gts = nil, nil
		for r := range b.reps {
			for i, args := range [][]string{il, gt} {
				cache := filepath.Join(b.tmp, fmt.Sprintf("cold%d-%d", r, i))
				env := []string{"GOCACHE=" + filepath.Join(cache, "go"), "XDG_CACHE_HOME=" + filepath.Join(cache, "xdg")}
				m, err := b.run(ctx, b.perfDir, env, args[0], args[1:]...)
				if err != nil {
					return err
				}
				if i == 0 {
					ils = append(ils, m)
				} else {
					gts = append(gts, m)
				}
				os.RemoveAll(cache)
			}
		}
		row(w, "cold (fresh GOCACHE and interleave cache)", ils, gts)
	}
	fmt.Fprintln(w)
	return nil
}

func row(w io.Writer, name string, il, gt []measure) {
	iw, ip := medians(il)
	gw, gp := medians(gt)
	fmt.Fprintf(w, "| %s | %.2f s, %s | %.2f s, %s | %.2f× | %.2f× |\n", name, iw, mb(ip), gw, mb(gp), iw/gw, ip/gp)
}

// perSchedule sets each perf test's time per schedule and peak memory under interleave test
// against the native test binary's per run.
func (b *bench) perSchedule(ctx context.Context, w io.Writer) error {
	fmt.Fprintf(w, "## Per schedule (interleave test) and per run (native test binary)\n\n")
	fmt.Fprintf(w, "interleave test: `-strategy random -keep-going -minimize 0 -p 1` (without `-strategy` in the rows of the default strategy, the portfolio `%s`), default points (racy) and race detection, `-schedules N -race-runs N`; time per schedule = the result's Elapsed / Schedules; memory = the exploring process's peak (PeakMemory, its VmHWM). Native: the `go test -c` binary with `-test.count=N`, time per run = its wall time / N, memory = its peak (rusage, started from a small process).\n\n", strategy.DefaultPortfolioMembers)
	fmt.Fprintf(w, "| test | N (interleave / native) | interleave per schedule | native per run | ratio | interleave peak | native peak | ratio |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	var floors []floorRow
	for _, c := range cases {
		var ilTime, ilPeak, nTime, nPeak, hTime, cTime []float64
		var shape *resultEvent
		for range b.reps {
			ev, err := b.explore(ctx, c)
			if err != nil {
				return err
			}
			ilTime = append(ilTime, ev.Elapsed/float64(ev.Schedules))
			ilPeak = append(ilPeak, float64(ev.PeakMemory))
			m, err := b.measured(ctx, b.perfDir, b.native, "-test.run", "^"+c.test+"$", "-test.count="+strconv.Itoa(c.count))
			if err != nil {
				return err
			}
			nTime = append(nTime, m.wall.Seconds()/float64(c.count))
			nPeak = append(nPeak, float64(m.peak))
			if c.floor == "" {
				continue
			}
			if shape == nil {
				shape = ev
			}
			for _, f := range []struct {
				test  string
				times *[]float64
			}{{c.floor, &hTime}, {"TestCoroutineFloor", &cTime}} {
				m, err := b.measured(ctx, b.perfDir, b.native, "-test.run", "^"+f.test+"$", "-test.count="+strconv.Itoa(c.count),
					"-floor.goroutines="+strconv.Itoa(shape.MaxGoroutines), "-floor.steps="+strconv.Itoa(shape.MaxSteps))
				if err != nil {
					return err
				}
				*f.times = append(*f.times, m.wall.Seconds()/float64(c.count))
			}
		}
		it, nt := median(ilTime), median(nTime)
		ip, np := median(ilPeak), median(nPeak)
		fmt.Fprintf(w, "| %s (%s) | %d / %d | %s | %s | %.1f× | %s | %s | %.2f× |\n", c.what, c.test, c.schedules, c.count, dur(it), dur(nt), it/nt, mb(ip), mb(np), ip/np)
		if c.floor != "" {
			floors = append(floors, floorRow{c, shape.MaxGoroutines, shape.MaxSteps, it, nt, median(hTime), median(cTime)})
		}
	}
	fmt.Fprintln(w)
	writeFloors(w, floors)
	return nil
}

// floorRow is a case's times set against the floors of its shape.
type floorRow struct {
	c                                      perfCase
	goroutines, steps                      int
	interleave, native, handoff, coroutine float64
}

// writeFloors prints each many-goroutine case's time per schedule against the floors of
// interleave test's design measured with the same goroutines and steps (testdata/perf's
// floor_test.go): what part of the ratio to native the engine could still remove, and what
// part any engine built this way pays.
func writeFloors(w io.Writer, rows []floorRow) {
	fmt.Fprintf(w, "## The floor of the design\n\n")
	fmt.Fprintf(w, "The floors run natively (`go test -c` binary, `-test.count=N`) with the goroutines and steps of the exploration above (its `-json` result's MaxGoroutines and MaxSteps, of its first run). **Handoffs**: the engine's design with nothing else — every goroutine on a goroutine of its own, a step handing control to the goroutine a seeded random walk picks by a token on its channel; for the contending goroutines in the test's own shape (TestContendFloor: a goroutine waiting for the mutex cannot be picked while it is held, so that as many are alive at once and the walk picks among as many as under interleave test), otherwise goroutines that each take their share of the steps (TestHandoffFloor). **Coroutines**: the second, switched by the standard library's cheapest means instead, iter.Pull's coroutines, two switches a step through a scheduler (TestCoroutineFloor).\n\n")
	fmt.Fprintf(w, "| test | goroutines, steps | interleave per schedule | handoff floor per run | floor / native | interleave / floor | coroutine floor per run | coroutine floor / native |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s (%s) | %d, %d | %s | %s | %.1f× | %.1f× | %s | %.1f× |\n", r.c.what, r.c.test, r.goroutines, r.steps,
			dur(r.interleave), dur(r.handoff)+" ("+strings.TrimSuffix(strings.TrimPrefix(r.c.floor, "Test"), "Floor")+")", r.handoff/r.native, r.interleave/r.handoff, dur(r.coroutine), r.coroutine/r.native)
	}
	fmt.Fprintln(w)
}

// resultEvent is what perfbench reads of interleave test -json's pass or fail event.
type resultEvent struct {
	Action        string
	Elapsed       float64
	Schedules     int
	PeakMemory    int64
	MaxGoroutines int
	MaxSteps      int
}

func (b *bench) explore(ctx context.Context, c perfCase) (*resultEvent, error) {
	n := strconv.Itoa(c.schedules)
	args := []string{"test", "-json", "-p", "1"}
	if c.strategy != "" {
		args = append(args, "-strategy", c.strategy)
	}
	args = append(args, "-keep-going", "-minimize", "0", "-schedules", n, "-race-runs", n, "-run", "^"+c.test+"$", ".")
	b.remember(b.perfDir, b.interleave, args)
	cmd := exec.CommandContext(ctx, b.interleave, args...)
	cmd.Dir = b.perfDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("interleave %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	var res *resultEvent
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e resultEvent
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Action == "pass" {
			res = &e
		}
	}
	if res == nil || res.Schedules == 0 || res.PeakMemory == 0 {
		return nil, fmt.Errorf("interleave %s: no passing result with schedules and peak memory in its output:\n%s", strings.Join(args, " "), out)
	}
	return res, nil
}

// engineRatios runs the engine's hot-path benchmarks once and copies their lines.
func (b *bench) engineRatios(ctx context.Context, w io.Writer) error {
	args := []string{"test", "-run", "XXX", "-bench", "Ratios|RaceDetector|ManyGoroutines|LimitedGroup", "-benchtime", "1x", "./engine"}
	b.remember(b.root, "go", args)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = b.root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	fmt.Fprintf(w, "## The engine's hot path (`go test -bench`, ratios measured in that one run)\n\n```\n")
	for line := range strings.Lines(string(out)) {
		if strings.HasPrefix(line, "Benchmark") {
			fmt.Fprint(w, line)
		}
	}
	fmt.Fprintf(w, "```\n")
	return nil
}

// run runs a command in dir and measures it; its output is only shown when it fails.
func (b *bench) run(ctx context.Context, dir string, env []string, name string, args ...string) (measure, error) {
	b.remember(dir, name, args)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return measure{}, fmt.Errorf("(cd %s && %s %s): %v\n%s", dir, name, strings.Join(args, " "), err, out.Bytes())
	}
	// The rusage of a waited-for process covers its own waited-for children: the peak is that
	// of the largest process of the tree (the test binary under go test or interleave test).
	return measure{wall: wall, peak: rusagePeak(cmd.ProcessState)}, nil
}

// measureFlag makes perfbench run a command and print its peak resident memory (measureChild).
const measureFlag = "-measure-child"

// measured runs a command through a second perfbench process, which measures its peak memory:
// a child's peak as the system reports it counts the memory its parent had when it started
// (Linux counts the parent's memory high-water mark at the exec), so the command is started
// from a small process, not from this one, which has grown by reading the other commands'
// output.
func (b *bench) measured(ctx context.Context, dir, name string, args ...string) (measure, error) {
	self, err := os.Executable()
	if err != nil {
		return measure{}, err
	}
	b.remember(dir, name, args)
	cmd := exec.CommandContext(ctx, self, append([]string{measureFlag, name}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	wall := time.Since(start)
	if err != nil {
		return measure{}, fmt.Errorf("(cd %s && %s %s): %v\n%s", dir, name, strings.Join(args, " "), err, stderr.Bytes())
	}
	peak, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return measure{}, fmt.Errorf("%s %s: measuring process printed %q: %v", name, strings.Join(args, " "), out, err)
	}
	return measure{wall: wall, peak: peak}, nil
}

// measureChild runs args and prints the peak resident memory of that process in bytes; the
// command's output goes to stderr. It exits with the command's status.
func measureChild(args []string) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(rusagePeak(cmd.ProcessState))
}

// remember records a command line for the report, once, the temporary directory as $TMP.
func (b *bench) remember(dir, name string, args []string) {
	rel, err := filepath.Rel(b.root, dir)
	if err != nil {
		rel = dir
	}
	line := strings.ReplaceAll("(cd "+rel+" && "+benchcmd.Line(name, args)+")", b.tmp, "$TMP")
	if !slices.Contains(b.commands, line) {
		b.commands = append(b.commands, line)
	}
}

// medians returns the median wall time in seconds and peak memory in bytes of ms.
func medians(ms []measure) (wall, peak float64) {
	var walls, peaks []float64
	for _, m := range ms {
		walls, peaks = append(walls, m.wall.Seconds()), append(peaks, float64(m.peak))
	}
	return median(walls), median(peaks)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs[len(xs)/2]
}

func mb(bytes float64) string { return fmt.Sprintf("%.0f MB", bytes/1e6) }

func dur(sec float64) string {
	d := time.Duration(sec * float64(time.Second))
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
	}
}
