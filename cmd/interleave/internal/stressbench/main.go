// Stressbench measures the time to first bug of four ways of running the same Go test over
// and over, each given the same wall-clock budget per case, and prints a Markdown table:
//
//  1. interleave stress (-json -explore=false -p 2): the first failure event's elapsed time,
//     counted from the start of the first stress process (its build is not counted);
//  2. go test -count natively: the test binary (go test -c) run with -test.count=100000000
//     -test.failfast, killed at the budget: the wall time until it exits with a failure
//     (a "panic: test timed out" counts as finding a hang at that time);
//  3. the same with a -race test binary;
//  4. golang.org/x/tools/cmd/stress -p 2 on the native test binary (-test.count=1 per run),
//     killed at the budget: the wall time until it reports its first failed run.
//
// The cases are the bundled examples of testdata/stress (wire, config, session, and clean,
// which has no bug) and some SCTBench-Go benchmarks (testdata/sctbench). Each case and way
// runs -reps times, interleave stress with a different seed each time; a cell is the median
// time to first bug over the runs that found one, with how many did. Under the table it
// prints the first failure of each cell, the exact command lines, the machine and the date.
//
// Run it from the repository root (it takes about reps × cases × 4 × budget at most):
//
//	go run ./cmd/interleave/internal/stressbench -budget 10s -reps 3 -o /tmp/stressbench.md
//
// Flags: -budget (per run, default 20s), -reps (default 3), -cases (a regexp over the case
// names), -seed (interleave stress's seed for the first repetition), -o (write the table to a
// file too). Binaries and failure logs go to a temporary directory removed at the end;
// interleave stress saves its failures under the modules' .interleave/ (gitignored).
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/benchcmd"
)

// benchCase is one test (or set of tests) to find a bug in.
type benchCase struct {
	name string
	mod  string // the module directory, relative to the repository root
	pkg  string // the package, relative to mod
	run  string // the -run regexp
}

var allCases = []benchCase{
	{"wire", "testdata/stress", "./wire", "^TestConcurrentSend$"},
	{"config", "testdata/stress", "./config", "^(TestReaders|TestReconfigure)$"},
	{"session", "testdata/stress", "./session", "^TestCall$"},
	{"clean", "testdata/stress", "./clean", "."},
	{"cs/account_bad", "testdata/sctbench", "./cs/account_bad", "^TestAccountBad$"},
	{"cs/reorder_3_bad", "testdata/sctbench", "./cs/reorder_3_bad", "^TestReorder3Bad$"},
	{"cs/twostage_bad", "testdata/sctbench", "./cs/twostage_bad", "^TestTwostageBad$"},
	{"cb/stringbuffer_jdk1_4", "testdata/sctbench", "./cb/stringbuffer_jdk1_4", "^TestStringbufferJdk14$"},
	{"chess/wsq", "testdata/sctbench", "./chess/wsq", "^TestWSQ$"},
	{"misc/ctrace_test", "testdata/sctbench", "./misc/ctrace_test", "^TestCtraceTest$"},
}

// The ways of running a test, in the table's order.
const (
	wayStress = iota
	wayNative
	wayRace
	wayXStress
	nWays
)

var wayNames = [nWays]string{"interleave stress", "go test -count", "go test -race -count", "x/tools stress"}

// procs is the number of processes interleave stress and x/tools stress run at once.
const procs = 2

// result is what one run of one way found.
type result struct {
	found bool
	ttfb  time.Duration // time to first bug, when found
	kind  string        // the first failure's kind
	msg   string        // its first line
	err   error         // the harness could not run it
	// stalled says a test binary that found nothing used (almost) no CPU time in the last
	// second of its budget: it was blocked, most likely in a hang it could not report.
	stalled bool
}

type bench struct {
	root       string // the repository root
	tmp        string // binaries, logs
	budget     time.Duration
	reps       int
	seed       uint64
	cases      []benchCase
	interleave string // the interleave command
	xstress    string // golang.org/x/tools/cmd/stress
	goVersion  string
	// commands are the command lines of each case, for the report.
	commands map[string][]string
	results  map[string]*[nWays][]result
}

func main() {
	budget := flag.Duration("budget", 20*time.Second, "wall-clock budget of each run of each way")
	reps := flag.Int("reps", 3, "runs of each case and way")
	casesRe := flag.String("cases", "", "run only the cases whose names match `regexp`")
	seed := flag.Uint64("seed", 1, "interleave stress's seed for the first run; run r uses seed+r")
	out := flag.String("o", "", "write the table to `file` too")
	flag.Parse()
	if flag.NArg() > 0 || *budget <= 0 || *reps < 1 {
		flag.Usage()
		os.Exit(2)
	}
	re, err := regexp.Compile(*casesRe)
	if err != nil {
		fmt.Fprintf(os.Stderr, "stressbench: -cases: %v\n", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	b := &bench{budget: *budget, reps: *reps, seed: *seed, commands: map[string][]string{}, results: map[string]*[nWays][]result{}}
	for _, c := range allCases {
		if re.MatchString(c.name) {
			b.cases = append(b.cases, c)
		}
	}
	if len(b.cases) == 0 {
		fmt.Fprintf(os.Stderr, "stressbench: no case matches %q\n", *casesRe)
		os.Exit(2)
	}
	if err := b.main(ctx, *out); err != nil {
		fmt.Fprintf(os.Stderr, "stressbench: %v\n", err)
		os.Exit(1)
	}
}

func (b *bench) main(ctx context.Context, out string) error {
	var err error
	if b.root, err = benchcmd.FindRoot(filepath.Join("testdata", "stress")); err != nil {
		return err
	}
	if b.tmp, err = os.MkdirTemp("", "stressbench-"); err != nil {
		return err
	}
	defer os.RemoveAll(b.tmp)
	v, err := exec.Command("go", "version").Output()
	if err != nil {
		return fmt.Errorf("go version: %v", err)
	}
	b.goVersion = strings.TrimSpace(string(v))
	load0 := loadAverage()
	started := time.Now()

	b.interleave = filepath.Join(b.tmp, "interleave")
	b.xstress = filepath.Join(b.tmp, "stress")
	if err := b.goCmd(ctx, b.root, "build", "-o", b.interleave, "./cmd/interleave"); err != nil {
		return err
	}
	if err := b.goCmd(ctx, b.root, "build", "-o", b.xstress, "golang.org/x/tools/cmd/stress"); err != nil {
		return err
	}
	for _, c := range b.cases {
		modDir := filepath.Join(b.root, c.mod)
		if err := b.goCmd(ctx, modDir, "test", "-c", "-o", b.testBinary(c, false), c.pkg); err != nil {
			return err
		}
		if err := b.goCmd(ctx, modDir, "test", "-c", "-race", "-o", b.testBinary(c, true), c.pkg); err != nil {
			return err
		}
		b.results[c.name] = new([nWays][]result)
	}
	// Repetition by repetition, so that a change of the machine's load falls on every case
	// and way alike.
	for r := 0; r < b.reps; r++ {
		for _, c := range b.cases {
			for w := 0; w < nWays; w++ {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				var res result
				switch w {
				case wayStress:
					res = b.runStress(ctx, c, b.seed+uint64(r))
				case wayNative:
					res = b.runNative(ctx, c, b.testBinary(c, false))
				case wayRace:
					res = b.runNative(ctx, c, b.testBinary(c, true))
				case wayXStress:
					res = b.runXStress(ctx, c)
				}
				if ctx.Err() != nil {
					return ctx.Err()
				}
				b.results[c.name][w] = append(b.results[c.name][w], res)
				fmt.Fprintf(os.Stderr, "run %d/%d  %-24s %-22s %s\n", r+1, b.reps, c.name, wayNames[w], res.String())
			}
		}
	}
	var report bytes.Buffer
	b.report(&report, started, load0, loadAverage())
	os.Stdout.Write(report.Bytes())
	if out != "" {
		if err := os.WriteFile(out, report.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) goCmd(ctx context.Context, dir string, args ...string) error {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	fmt.Fprintf(os.Stderr, "stressbench: (cd %s && %s)\n", b.rel(dir), b.cmdLine("go", args))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return nil
}

func (b *bench) testBinary(c benchCase, race bool) string {
	name := strings.NewReplacer("/", "_", ".", "_").Replace(c.name)
	if race {
		name += ".race"
	}
	return filepath.Join(b.tmp, name+".test")
}

// pkgDir is where go test runs a case's test binary.
func (b *bench) pkgDir(c benchCase) string { return filepath.Join(b.root, c.mod, c.pkg) }

func (b *bench) rel(dir string) string {
	if r, err := filepath.Rel(b.root, dir); err == nil {
		return r
	}
	return dir
}

// remember records a command line of case c for the report, once, with a shell comment.
func (b *bench) remember(c benchCase, dir, line, comment string) {
	line = "(cd " + b.rel(dir) + " && " + line + ")"
	if comment != "" {
		line += "  # " + comment
	}
	if !slices.Contains(b.commands[c.name], line) {
		b.commands[c.name] = append(b.commands[c.name], line)
	}
}

// cmdLine quotes a command line for a shell, with the temporary directory as $TMP.
func (b *bench) cmdLine(name string, args []string) string {
	return strings.ReplaceAll(benchcmd.Line(name, args), b.tmp, "$TMP")
}
