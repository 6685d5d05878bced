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
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
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
	if b.root, err = findRoot(); err != nil {
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

// findRoot returns the repository root: the working directory or the first parent that
// holds cmd/interleave and testdata/stress.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if isDir(filepath.Join(d, "cmd", "interleave")) && isDir(filepath.Join(d, "testdata", "stress")) {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("run it in the interleave repository: no cmd/interleave and testdata/stress in %s or above", dir)
		}
	}
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
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
	q := []string{quote(name)}
	for _, a := range args {
		q = append(q, quote(a))
	}
	return strings.ReplaceAll(strings.Join(q, " "), b.tmp, "$TMP")
}

func quote(s string) string {
	safe := func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !safe(r) }) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// capped keeps the first max bytes written to it.
type capped struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - len(c.b); room > 0 {
		c.b = append(c.b, p[:min(len(p), room)]...)
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.b)
}

// stressEvent is what stressbench reads of interleave stress -json's events.
type stressEvent struct {
	Phase   string    `json:"phase"`
	Action  string    `json:"action"`
	Time    time.Time `json:"time"`
	Failure *struct {
		Kind    string        `json:"kind"`
		Test    string        `json:"test"`
		Message string        `json:"message"`
		Elapsed time.Duration `json:"elapsed"`
	} `json:"failure"`
}

// progressEvery is how often a stress process writes a progress event: its first one comes
// at least this long after the process's start.
const progressEvery = 250 * time.Millisecond

// runStress runs interleave stress on c. The time to first bug is the first failure's
// elapsed time. A failure's elapsed time counts from the start of its own process, so a
// failure of the melting pot (whose processes start when the tests alone have run) is timed
// from the start of the first process instead: each event's timestamp bounds that start from
// above (a failure's time minus its elapsed time; a progress event's time minus the
// progress period), and the smallest bound is taken.
func (b *bench) runStress(ctx context.Context, c benchCase, seed uint64) result {
	args := []string{"stress", "-json", "-explore=false", "-time", b.budget.String(), "-seed", strconv.FormatUint(seed, 10),
		"-p", strconv.Itoa(procs), c.pkg, "-run", c.run}
	dir := filepath.Join(b.root, c.mod)
	shown := slices.Clone(args)
	shown[slices.Index(shown, "-seed")+1] = "SEED"
	b.remember(c, dir, strings.Replace(b.cmdLine(b.interleave, shown), "SEED", "$S", 1),
		"S = "+b.seedList()+", one per run; interrupted 0.5 s after its first failure event")
	cmd := exec.Command(b.interleave, args...)
	cmd.Dir = dir
	ownGroup(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return result{err: err}
	}
	stderr := &capped{max: 1 << 20}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return result{err: err}
	}
	defer killGroup(cmd) // what it left behind
	events := make(chan stressEvent)
	go func() {
		defer close(events)
		rd := bufio.NewReader(stdout)
		for {
			line, err := rd.ReadBytes('\n')
			var e stressEvent
			if json.Unmarshal(line, &e) == nil && e.Action != "" {
				events <- e
			}
			if err != nil {
				io.Copy(io.Discard, rd)
				return
			}
		}
	}()
	var (
		start       time.Time // the smallest upper bound of the first process's start
		first       *stressEvent
		interrupted bool
		stopSoon    <-chan time.Time
		killSoon    <-chan time.Time
	)
	bound := func(t time.Time) {
		if start.IsZero() || t.Before(start) {
			start = t
		}
	}
	// The run ends by itself after its build and the budget; the deadline is a safety net.
	deadline := time.NewTimer(b.budget + 5*time.Minute)
	defer deadline.Stop()
loop:
	for {
		select {
		case e, ok := <-events:
			if !ok {
				break loop
			}
			switch {
			case e.Failure != nil:
				bound(e.Time.Add(-e.Failure.Elapsed))
				if first == nil || e.Time.Before(first.Time) {
					first = &e
				}
				if stopSoon == nil && !interrupted {
					// Another process's earlier failure may still be on its way (interleave
					// stress reads the processes' events every 100ms); then stop the run.
					stopSoon = time.After(500 * time.Millisecond)
				}
			case e.Action == "progress":
				bound(e.Time.Add(-progressEvery))
			}
		case <-stopSoon:
			stopSoon, interrupted = nil, true
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				killGroup(cmd)
			}
			killSoon = time.After(15 * time.Second)
		case <-killSoon:
			killSoon = nil
			killGroup(cmd)
		case <-deadline.C:
			killGroup(cmd)
			interrupted = true
		case <-ctx.Done():
			killGroup(cmd)
			interrupted = true
		}
	}
	waitErr := cmd.Wait()
	if first != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(first.Failure.Message), "\n")
		return result{found: true, ttfb: first.Time.Sub(start), kind: first.Failure.Kind, msg: first.Failure.Test + ": " + msg}
	}
	if waitErr != nil && !interrupted {
		return result{err: fmt.Errorf("interleave stress: %v without a failure event:\n%s", waitErr, lastLines(stderr.String(), 20))}
	}
	return result{}
}

func (b *bench) seedList() string {
	var s []string
	for r := 0; r < b.reps; r++ {
		s = append(s, strconv.FormatUint(b.seed+uint64(r), 10))
	}
	return strings.Join(s, ", ")
}

// runNative runs a test binary with -test.count=100000000 -test.failfast until it fails or the
// budget ends.
func (b *bench) runNative(ctx context.Context, c benchCase, bin string) result {
	args := []string{"-test.run", c.run, "-test.count=100000000", "-test.failfast", "-test.timeout=" + (b.budget + 5*time.Second).String()}
	dir := b.pkgDir(c)
	b.remember(c, dir, b.cmdLine(bin, args), "killed at the budget")
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	ownGroup(cmd)
	out := &capped{max: 1 << 20}
	cmd.Stdout, cmd.Stderr = out, out
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return result{err: err}
	}
	defer killGroup(cmd)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(b.budget)
	defer timer.Stop()
	// The CPU time the binary uses in the last second of its budget tells whether it was
	// still running tests or was blocked, as a hang leaves it.
	var sample <-chan time.Time
	if b.budget > 2*time.Second {
		sample = time.After(b.budget - time.Second)
	}
	cpu0 := time.Duration(-1)
	var res result
loop:
	for {
		select {
		case err := <-done:
			el := time.Since(t0)
			if err == nil {
				return result{} // every count passed
			}
			kind, msg := classify(out.String())
			return result{found: true, ttfb: el, kind: kind, msg: msg}
		case <-sample:
			cpu0 = cpuTime(cmd.Process.Pid)
		case <-timer.C:
			if cpu1 := cpuTime(cmd.Process.Pid); cpu0 >= 0 && cpu1 >= 0 && cpu1-cpu0 <= stallCPU {
				res.stalled = true
			}
			break loop
		case <-ctx.Done():
			break loop
		}
	}
	killGroup(cmd)
	<-done
	return res
}

// stallCPU is the most CPU time a test binary may use in the last second of its budget to
// count as stalled.
const stallCPU = 20 * time.Millisecond

// cpuTime returns the CPU time process pid has used, or -1 where /proc does not say.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// The fields after the command name, which is in parentheses: state is field 3, utime
	// and stime (in clock ticks, 100 per second on Linux) fields 14 and 15.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return -1
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// runXStress runs x/tools stress on the native test binary until it reports a failed run or
// the budget ends.
func (b *bench) runXStress(ctx context.Context, c benchCase) result {
	prefix := filepath.Join(b.tmp, "go-stress-")
	args := []string{"-p", strconv.Itoa(procs), "-timeout", "10s", "-o", prefix, b.testBinary(c, false), "-test.run", c.run, "-test.count=1"}
	dir := b.pkgDir(c)
	b.remember(c, dir, b.cmdLine(b.xstress, args), "killed at its first failure or at the budget")
	cmd := exec.Command(b.xstress, args...)
	cmd.Dir = dir
	ownGroup(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return result{err: err}
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return result{err: err}
	}
	defer killGroup(cmd)
	type line struct {
		text string
		at   time.Duration
	}
	lines := make(chan line)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			lines <- line{sc.Text(), time.Since(t0)}
		}
		io.Copy(io.Discard, stdout)
	}()
	timer := time.NewTimer(b.budget)
	defer timer.Stop()
	var res result
loop:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				break loop
			}
			if strings.HasPrefix(l.text, prefix) {
				// The path of the first failed run's log; its output follows.
				log, _ := os.ReadFile(l.text)
				res.found, res.ttfb = true, l.at
				res.kind, res.msg = classify(string(log))
				break loop
			}
		case <-timer.C:
			break loop
		case <-ctx.Done():
			break loop
		}
	}
	killGroup(cmd)
	go func() {
		for range lines {
		}
	}()
	cmd.Wait()
	return res
}

var (
	testMessage = regexp.MustCompile(`(?m)^\s+\S+\.go:\d+: .*$`)
	panicLine   = regexp.MustCompile(`(?m)^(panic: |fatal error: ).*$`)
)

// classify names the failure in a test binary's output, and returns its first line.
func classify(out string) (kind, msg string) {
	firstMsg := ""
	for _, m := range testMessage.FindAllString(out, -1) {
		if !strings.Contains(m, "race detected during execution of test") {
			firstMsg = strings.TrimSpace(m)
			break
		}
	}
	p := panicLine.FindString(out)
	switch {
	case strings.Contains(out, "panic: test timed out"):
		kind, msg = "hang (test timeout)", p
	case strings.Contains(out, "SIGABRT: abort"):
		kind, msg = "hang (stress -timeout)", "SIGABRT: abort"
	case strings.Contains(out, "all goroutines are asleep - deadlock"):
		kind, msg = "deadlock", p
	case strings.Contains(out, "WARNING: DATA RACE"):
		kind, msg = "race", raceLine(out)
		if firstMsg != "" {
			kind, msg = "race+fail", firstMsg
		}
	case p != "":
		kind, msg = "panic", p
	case firstMsg != "":
		kind, msg = "fail", firstMsg
	case strings.Contains(out, "--- FAIL"):
		kind, msg = "fail", "--- FAIL"
	default:
		kind, msg = "exit", lastLines(out, 1)
	}
	return kind, msg
}

// raceLine summarizes the race detector's first report: its first access and where.
func raceLine(out string) string {
	_, rep, _ := strings.Cut(out, "WARNING: DATA RACE\n")
	lines := strings.Split(rep, "\n")
	if len(lines) < 3 {
		return "WARNING: DATA RACE"
	}
	access, _, _ := strings.Cut(strings.TrimSpace(lines[0]), " at 0x") // "Write at 0x… by goroutine 8:"
	fn := strings.TrimSpace(lines[1])
	pos, _, _ := strings.Cut(strings.TrimSpace(lines[2]), " +0x")
	return fmt.Sprintf("WARNING: DATA RACE: %s in %s at %s", access, fn, filepath.Base(pos))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func (r result) String() string {
	switch {
	case r.err != nil:
		return "error: " + r.err.Error()
	case r.found:
		return fmtDur(r.ttfb) + " " + r.kind + ": " + r.msg
	case r.stalled:
		return "✗ (stalled: no CPU time in its last second)"
	}
	return "✗"
}

func fmtDur(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s < 0.1:
		return fmt.Sprintf("%.3f s", s)
	case s < 10:
		return fmt.Sprintf("%.2f s", s)
	}
	return fmt.Sprintf("%.1f s", s)
}

// cell summarizes the runs of one case and way: the median time to first bug over the runs
// that found one, how many did, and the kinds of their first failures.
func cell(runs []result) string {
	var times []time.Duration
	var kinds []string
	errs, stalled := 0, 0
	for _, r := range runs {
		switch {
		case r.err != nil:
			errs++
		case r.stalled:
			stalled++
		case r.found:
			times = append(times, r.ttfb)
			if !slices.Contains(kinds, r.kind) {
				kinds = append(kinds, r.kind)
			}
		}
	}
	var s string
	if len(times) == 0 {
		s = fmt.Sprintf("✗ (0/%d)", len(runs))
	} else {
		slices.Sort(times)
		m := times[len(times)/2]
		if len(times)%2 == 0 {
			m = (times[len(times)/2-1] + times[len(times)/2]) / 2
		}
		s = fmt.Sprintf("%s (%d/%d) %s", fmtDur(m), len(times), len(runs), strings.Join(kinds, ", "))
	}
	if stalled > 0 {
		s += fmt.Sprintf(", stalled in %d", stalled)
	}
	if errs > 0 {
		s += fmt.Sprintf(" — %d run(s) could not run", errs)
	}
	return s
}

func mdEscape(s string) string {
	s = strings.NewReplacer("|", `\|`, "`", "'", "\n", " ", "\t", " ", "<", "&lt;", ">", "&gt;").Replace(s)
	if len(s) > 110 {
		s = s[:110] + "…"
	}
	return s
}

func (b *bench) report(w io.Writer, started time.Time, load0, load1 string) {
	fmt.Fprintf(w, "## Time to first bug: interleave stress, go test -count, go test -race -count, x/tools stress\n\n")
	fmt.Fprintf(w, "Budget %v per run; %d run(s) per case and way. A cell is the median time to first bug over the runs that found one, (runs that found it / runs), and the kinds of their first failures; ✗: no failure within the budget.\n\n", b.budget, b.reps)
	fmt.Fprintf(w, "| case | -run | %s |\n|---|---|", strings.Join(wayNames[:], " | "))
	for range nWays {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, c := range b.cases {
		fmt.Fprintf(w, "| %s | `%s` |", c.name, strings.ReplaceAll(c.run, "|", `\|`))
		for wy := 0; wy < nWays; wy++ {
			fmt.Fprintf(w, " %s |", cell(b.results[c.name][wy]))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, `
How each time is taken:

- interleave stress: the first failure event's elapsed time (the build of the instrumented test binary is not counted), from the start of the first stress process; a failure in the melting pot (phase "together") counts the phase of the tests alone before it. Kinds are interleave stress's (fail, panic, hang, leak). The run is stopped 0.5 s after its first failure event.
- go test -count, go test -race -count: wall time from starting the test binary until it exits with a failure (the binary is built beforehand). "hang (test timeout)" would be go test's "panic: test timed out" counted as finding a hang at that time; with -test.timeout = budget + 5 s and the kill at the budget it cannot happen within the budget, so a test that hangs natively shows as ✗. "stalled in k": in k of the runs that found nothing, the test binary used at most 20 ms of CPU time in the last second of its budget (/proc/PID/stat) — it was blocked, most likely in a hang it had no way to report yet; not counted as found.
- x/tools stress: wall time from starting stress until it prints the path of its first failure log (it prints it when the failed run has exited). Its -timeout 10s (per run) is the only way it reports a hang, so it cannot report one before 10 s.
`)
	fmt.Fprintf(w, "\nThe first failure of each cell (from the first run that found one):\n\n| case | way | kind | first line |\n|---|---|---|---|\n")
	for _, c := range b.cases {
		for wy := 0; wy < nWays; wy++ {
			for _, r := range b.results[c.name][wy] {
				if r.err != nil {
					fmt.Fprintf(w, "| %s | %s | error | %s |\n", c.name, wayNames[wy], mdEscape(r.err.Error()))
					break
				}
				if r.found {
					fmt.Fprintf(w, "| %s | %s | %s | %s |\n", c.name, wayNames[wy], r.kind, mdEscape(r.msg))
					break
				}
			}
		}
	}
	fmt.Fprintf(w, "\nCommands ($TMP is a temporary directory, removed at the end; paths are relative to the repository root):\n\n```sh\n")
	fmt.Fprintf(w, "go build -o $TMP/interleave ./cmd/interleave\ngo build -o $TMP/stress golang.org/x/tools/cmd/stress\n")
	for _, c := range b.cases {
		fmt.Fprintf(w, "\n# %s\n", c.name)
		fmt.Fprintf(w, "(cd %s && go test -c -o %s %s)\n", c.mod, strings.ReplaceAll(b.testBinary(c, false), b.tmp, "$TMP"), c.pkg)
		fmt.Fprintf(w, "(cd %s && go test -c -race -o %s %s)\n", c.mod, strings.ReplaceAll(b.testBinary(c, true), b.tmp, "$TMP"), c.pkg)
		for _, l := range b.commands[c.name] {
			fmt.Fprintln(w, l)
		}
	}
	fmt.Fprintf(w, "```\n\n")
	fmt.Fprintf(w, "Machine: %s/%s, runtime.NumCPU() = %d, %s; load average %s at the start, %s at the end.\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), b.goVersion, load0, load1)
	fmt.Fprintf(w, "Date: %s to %s (UTC).\n", started.UTC().Format("2006-01-02 15:04"), time.Now().UTC().Format("2006-01-02 15:04"))
}

// loadAverage returns the 1-, 5- and 15-minute load averages, where the system says.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "(unknown)"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "(unknown)"
	}
	return strings.Join(f[:3], " ")
}
