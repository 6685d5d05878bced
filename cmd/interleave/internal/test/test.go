// Package test is interleave test: it instruments the packages, explores each selected test
// under the controlled scheduler in worker processes (-p) or shards (-shard), and reports what
// it found as text or go test -json events, JUnit XML and SARIF, and in the results store.
package test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/base"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/report"
	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/instrument"
	"github.com/interleave-dev/interleave/engine/store"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// testOutcome is what one test's run came to.
type testOutcome = report.Outcome

// Run runs interleave test with the command-line arguments args.
func Run(args []string, stdout, stderr io.Writer) error {
	f, err := parseTestFlags(args)
	if errors.Is(err, flag_ErrHelp) {
		fmt.Fprintf(stderr, testUsage, strings.Join(strategy.Names, ", "))
		writeTestFlags(stderr)
		return nil
	}
	if err != nil {
		return err
	}
	s, err := strategy.New(f.strategy, f.params, f.seed)
	if err != nil {
		return fmt.Errorf("%w: %v", base.ErrUsage, err)
	}
	// A test is split among workers and shards only when its strategy can be partitioned;
	// otherwise (PERIOD) the shards split the test list, each test explored whole in one.
	splitErr := strategy.Partition(s, strategy.Part{}.Within(0, 2))
	splittable := splitErr == nil
	// PERIOD's workers on one machine explore one test's search in step (strategy.Lockstep).
	lockstep := !splittable && strategy.CanLockstep(s) == nil
	ctx, stop := base.StopContext()
	defer stop()
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	wd, f.packages = ModuleOf(wd, f.packages)
	work, err := instrument.WorkDir("interleave-build")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	out := newOutput(f, stdout, stderr)
	out.status("instrumenting " + strings.Join(f.packages, " ") + " ...")
	res, err := instrument.Build(ctx, instrument.Config{Dir: wd, Patterns: f.packages, BuildFlags: f.buildFlags, Modules: f.modules, Work: work, Output: nil})
	out.status("")
	if intr := base.InterruptedBy(ctx); err != nil && intr != nil {
		return fmt.Errorf("%w while building the tests: nothing was run", intr)
	}
	if err != nil {
		return BuildFailed(err)
	}
	for _, p := range res.Problems {
		out.warn(fmt.Sprintf("interleave: not instrumented: %s: %s", RelPos(wd, p.Pos.String()), p.Msg))
	}
	if f.verbose {
		switch {
		case res.Cached:
			out.warn("interleave: nothing changed: the cached build")
		case res.NotCached != "":
			out.warn("interleave: built; not kept in the build cache: " + res.NotCached)
		}
	}
	if err := saveInstrumentation(res); err != nil {
		out.warn("interleave: " + err.Error())
	}
	// Select the tests.
	var jobs []*testJob
	for _, p := range res.Packages {
		if p.Binary == "" {
			out.noTests(p.ImportPath)
			continue
		}
		tests, err := ListTests(ctx, p, f.run, f.skip)
		if intr := base.InterruptedBy(ctx); err != nil && intr != nil {
			return fmt.Errorf("%w while listing the tests: nothing was run", intr)
		}
		if err != nil {
			return err
		}
		if len(tests) == 0 {
			// As go test: a package whose tests -run (or -skip) leaves none passes.
			out.noTestsToRun(p.ImportPath)
			continue
		}
		for _, t := range tests {
			jobs = append(jobs, &testJob{pkg: p, test: t, work: work, done: make(chan struct{})})
		}
	}
	total := len(jobs)
	jobs, byTests := shardTests(f, jobs, splittable)
	switch {
	case byTests && !splittable:
		// Said always: the shard does not split the tests' schedules, as a user may expect.
		out.warn(fmt.Sprintf("interleave: shard %d/%d: %d of the %d tests, each explored whole: %v", f.shard.Index+1, f.shard.Count, len(jobs), total, splitErr))
	case byTests && f.verbose:
		out.warn(fmt.Sprintf("interleave: shard %d/%d: %d of the %d tests, each explored whole", f.shard.Index+1, f.shard.Count, len(jobs), total))
	}
	planJobs(f, jobs, splittable, lockstep, byTests)
	var outcomes []testOutcome
	started := time.Now()
	bugs, failures := 0, 0
	runJobs(ctx, f, jobs, startOrder(jobs, pastDurations(moduleDirOf(res.Packages))), out)
	// A signal (Ctrl-C, a CI runner's SIGTERM) that stopped tests before their end makes
	// the run an interrupted one, not a pass: the tests it stopped, and those it did not
	// start, are reported as not explored to the end, with what was found before.
	intr := base.InterruptedBy(ctx)
	stopped, notStarted := 0, 0
	for _, j := range jobs {
		if !j.started {
			if intr != nil {
				notStarted++
				outcomes = append(outcomes, testOutcome{Package: j.pkg.ImportPath, Test: j.test, Interrupted: true,
					Err: fmt.Sprintf("not explored: the run was interrupted (signal: %s) before it started", intr.Signal)})
			}
			continue
		}
		o := j.outcome
		outcomes = append(outcomes, o)
		switch {
		case o.Interrupted:
			stopped++
		case o.Err != "":
			failures++
		case o.Result != nil && o.Result.Bug != nil:
			bugs++
		}
	}
	signal := ""
	if stopped+notStarted == 0 {
		intr = nil // it came when every test was explored: the run is whole
	} else {
		signal = intr.Signal.String()
	}
	if path, err := saveRun(res.Packages, f, outcomes, signal); err != nil {
		out.warn("interleave: " + err.Error())
	} else if f.verbose {
		out.warn("interleave: run summary in " + path)
	}
	if f.junit != "" {
		// Written whatever happened, with the outcomes gathered so far (an interrupted run
		// reports the tests it explored). A report that cannot be written fails the run: a
		// CI job would otherwise read an old one, or none.
		if err := report.WriteJUnit(f.junit, report.JUnit(f.reportConfig(signal), outcomes, started)); err != nil {
			out.warn("interleave: " + err.Error())
			failures++
		}
	}
	if f.sarif != "" {
		root := ""
		for _, p := range res.Packages {
			if p.ModuleDir != "" {
				root = p.ModuleDir
				break
			}
		}
		if err := report.WriteSARIF(f.sarif, report.SARIF(f.reportConfig(signal), outcomes, root, append([]string{"interleave", "test"}, args...), failures == 0)); err != nil {
			out.warn("interleave: " + err.Error())
			failures++
		}
	}
	if _, _, line := report.NotExplored(outcomes); line != "" {
		out.notExploredRun(line)
	}
	if intr != nil {
		out.interruptedRun(signal, stopped, notStarted)
	}
	// A bug found is what the run is for: it decides the status even when another test
	// could not be explored (its error was printed), or the run was interrupted (the bug is
	// certain, and reported and saved). An interrupted run exits with 128 plus the signal's
	// number (main.go). A test cut at the step bound or abandoned outside the engine is
	// reported as skipped, with why, and counted in the last line: not a failure, as go test
	// does not fail a skipped test.
	switch {
	case bugs > 0:
		return base.ErrBug
	case intr != nil:
		return intr
	case failures > 0:
		return base.ErrQuiet
	}
	return nil
}

// BuildFailed is the error of a run whose instrumented build failed: the go command's
// output, indented, when it is what failed.
func BuildFailed(err error) error {
	var ie *instrument.Error
	if errors.As(err, &ie) {
		return fmt.Errorf("%s failed; nothing was run:\n%s", ie.Op, base.IndentLines(strings.TrimSpace(ie.Detail), "\t"))
	}
	return err
}

// ModuleOf lets the packages be given as the directory of another module (an example under
// testdata, a checkout next to this one): when every pattern is a directory of one module
// other than the working directory's, the build runs in that module, as if run there.
func ModuleOf(wd string, patterns []string) (string, []string) {
	root := func(dir string) string {
		for d := dir; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				return d
			}
			if filepath.Dir(d) == d {
				return ""
			}
		}
	}
	here := root(wd)
	var other string
	var rel []string
	for _, p := range patterns {
		if !(strings.HasPrefix(p, ".") || filepath.IsAbs(p)) {
			return wd, patterns
		}
		dir, suffix := p, ""
		if strings.HasSuffix(p, "/...") {
			dir, suffix = strings.TrimSuffix(p, "/..."), "/..."
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(wd, dir)
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return wd, patterns
		}
		r := root(dir)
		if r == "" || r == here || (other != "" && r != other) {
			return wd, patterns
		}
		other = r
		p, err := filepath.Rel(r, dir)
		if err != nil {
			return wd, patterns
		}
		rel = append(rel, "./"+filepath.ToSlash(p)+suffix)
	}
	if other == "" {
		return wd, patterns
	}
	return other, rel
}

// ListTests returns the tests of the package that -run and -skip select: those the build
// listed (instrument.Package.Tests), or those the binary lists now.
func ListTests(ctx context.Context, p *instrument.Package, run, skip string) ([]string, error) {
	all := p.Tests
	if all == nil {
		var err error
		if all, err = instrument.ListTests(ctx, p); err != nil {
			return nil, err
		}
	}
	if run == "" {
		run = "."
	}
	re, _ := regexp.Compile(run)
	var skipRe *regexp.Regexp
	if skip != "" {
		skipRe, _ = regexp.Compile(skip)
	}
	var tests []string
	for _, t := range all {
		if re.MatchString(t) && (skipRe == nil || !skipRe.MatchString(t)) {
			tests = append(tests, t)
		}
	}
	return tests, nil
}

// runOneTest explores one test in its worker processes, reading their events as they come,
// and writes its result to out.
func runOneTest(ctx context.Context, f *testFlags, j *testJob, out *output, live *liveProgress) testOutcome {
	p, test := j.pkg, j.test
	o := testOutcome{Package: p.ImportPath, Test: test}
	out.start(p.ImportPath, test)
	live.begin(p.ImportPath, test)
	defer live.end(p.ImportPath, test)
	storeDir, err := store.ScheduleDir(p.Dir)
	if err != nil {
		// The exploration still runs: a bug's schedule is printed in full instead of saved.
		out.warn(fmt.Sprintf("interleave: %s: %v: a bug's schedule is printed instead of saved", test, err))
		storeDir = filepath.Join(p.ModuleDir, filepath.FromSlash(findings.SchedulesDir))
	}
	env := f.exploreEnv(storeDir, j.time)
	res, log, err := exploreParts(ctx, f, j, env, live)
	if f.verbose {
		out.verboseLog(log)
	}
	o.Result = res
	if res != nil && res.Notice != "" {
		out.warn("interleave: " + test + ": " + res.Notice)
	}
	if intr := base.InterruptedBy(ctx); intr != nil && !exploredToEnd(res, err) {
		// Stopped by a signal without a bug: not a pass. What it explored is kept.
		o.Interrupted = true
		if res != nil {
			o.Err = fmt.Sprintf("interrupted (signal: %s) after %d schedule(s) without a bug: not explored to the end", intr.Signal, res.Schedules)
		} else {
			o.Err = fmt.Sprintf("interrupted (signal: %s) before its result: not explored to the end", intr.Signal)
		}
		o.Status, o.Reason = report.StatusOf(o)
		out.interrupted(o, intr.Signal.String())
		return o
	}
	switch {
	case err != nil:
		o.Err = err.Error()
	case res.Error != "" && res.Bug != nil:
		// A bug whose schedule could not be saved: the bug and its whole schedule are
		// printed, and the failed write said.
		o.Status, o.Reason = report.StatusOf(o)
		out.result(o)
		o.Err = res.Error
		out.warn("interleave: " + res.Error)
		return o
	case res.Error != "":
		o.Err = res.Error
	}
	o.Status, o.Reason = report.StatusOf(o)
	if o.Err != "" {
		out.toolError(o)
		return o
	}
	out.result(o)
	return o
}

// exploredToEnd says whether a test's exploration ended of itself — its budget spent, its
// schedule space exhausted, a bug found — rather than stopped by a signal.
func exploredToEnd(res *explore.Event, err error) bool {
	return err == nil && res != nil && (res.Bug != nil || res.Error == "" && res.Stopped != "canceled" && res.Stopped != "")
}

// exploreEnv is the environment that configures a test binary's exploration as f says,
// saving schedules in storeDir, with the time budget budget (0: none; testBudget).
func (f *testFlags) exploreEnv(storeDir string, budget time.Duration) []string {
	env := []string{
		"INTERLEAVE_SCHEDULES=" + strconv.Itoa(f.schedules),
		// A default budget stops where the executions stop showing anything new; a
		// -schedules given is explored whole.
		"INTERLEAVE_PLATEAU=" + strconv.FormatBool(!f.schedulesSet),
		"INTERLEAVE_SEED=" + strconv.FormatUint(f.seed, 10),
		"INTERLEAVE_KEEP_GOING=" + strconv.FormatBool(f.keepGoing),
		"INTERLEAVE_MINIMIZE=" + f.minimize.String(),
		"INTERLEAVE_POINTS=" + f.points,
		"INTERLEAVE_RACES=" + f.races,
		"INTERLEAVE_SLEEPS=" + f.sleeps,
		"INTERLEAVE_RACE_RUNS=" + strconv.Itoa(f.raceRuns),
		"INTERLEAVE_SCHEDULE_DIR=" + storeDir,
		"INTERLEAVE_REPLAY=",
		savedEnv(f.noSaved),
	}
	strat := f.strategy
	if len(f.params) > 0 {
		var kv []string
		for k, v := range f.params {
			kv = append(kv, k+"="+v)
		}
		sort.Strings(kv)
		strat += ":" + strings.Join(kv, ",")
	}
	env = append(env, "INTERLEAVE_STRATEGY="+strat)
	if budget > 0 {
		env = append(env, "INTERLEAVE_TIME="+budget.String())
	}
	if f.maxSteps != 0 {
		env = append(env, "INTERLEAVE_MAX_STEPS="+strconv.Itoa(f.maxSteps))
	}
	if f.fairSteps != 0 {
		env = append(env, "INTERLEAVE_FAIR_STEPS="+strconv.Itoa(f.fairSteps))
	}
	if f.strictLeak {
		env = append(env, "INTERLEAVE_STRICT_LEAKS=true")
	}
	return env
}

// ExecTest runs the test binary of p for one test with the INTERLEAVE_* variables of env, and
// returns its result event and its output. Progress events (and the "lockstep" events of a
// lockstep search) go to onEvent as they come. The test binary inherits its event stream and
// the lockstep file, if given (extra holds at most that one), which INTERLEAVE_EVENTS and
// INTERLEAVE_LOCKSTEP name (proc_unix.go, proc_windows.go); they are closed here once
// it started, so that the binary holds the only copies (a pipe's writer then learns that it
// ended).
func ExecTest(ctx context.Context, p *instrument.Package, test string, env []string, onEvent func(*explore.Event), extra ...*os.File) (*explore.Event, string, error) {
	r, w, err := os.Pipe()
	if err != nil {
		for _, f := range extra {
			f.Close()
		}
		return nil, "", err
	}
	cmd := instrument.Command(ctx, p.Binary, "-test.run", "^"+regexp.QuoteMeta(test)+"$", "-test.count=1", "-test.timeout=0")
	cmd.Dir = p.Dir
	names := inherit(cmd, append([]*os.File{w}, extra...))
	cmd.Env = append(append(append(os.Environ(), "INTERLEAVE_EVENTS="+names[0], "INTERLEAVE_CLI=1"), p.BuildEnv()...), env...)
	if len(extra) > 0 {
		cmd.Env = append(cmd.Env, "INTERLEAVE_LOCKSTEP="+names[1])
	}
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.Cancel = func() error { return Interrupt(cmd) }
	// An interrupted test binary ends after the execution under way (the watchdog ends a
	// stuck one within its limit); one that does not is killed.
	cmd.WaitDelay = time.Minute
	err = cmd.Start()
	for _, f := range extra {
		f.Close()
	}
	if err != nil {
		w.Close()
		r.Close()
		return nil, "", fmt.Errorf("run the test binary of %s: %w", p.ImportPath, err)
	}
	w.Close()
	var result *explore.Event
	// Lines are read whole however long (a bug's trace), in time linear in their length
	// (bufio.Scanner would search a long line again at every read).
	in := bufio.NewReaderSize(r, 1<<16)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			break
		}
		var e explore.Event
		if err := json.Unmarshal(line, &e); err != nil {
			continue
		}
		switch e.Event {
		case "progress", "lockstep":
			if onEvent != nil {
				onEvent(&e)
			}
		case "result":
			result = &e
		}
	}
	r.Close()
	waitErr := cmd.Wait()
	if result == nil {
		msg := "the test binary ended without a result: " + WhyEnded(waitErr)
		if tail := base.LastLines(log.String(), 30); tail != "" {
			msg += ":\n" + base.IndentLines(tail, "\t")
		}
		return nil, log.String(), errors.New(msg)
	}
	return result, log.String(), nil
}

// moduleDirOf is the directory of the module whose results store the run's summary goes to:
// the first package's that has one.
func moduleDirOf(pkgs []*instrument.Package) string {
	for _, p := range pkgs {
		if p.ModuleDir != "" {
			return p.ModuleDir
		}
	}
	return ""
}

// saveRun writes the run's summary to .interleave/runs at the module root; interrupted is
// the signal that interrupted the run, "" when it went to its end.
func saveRun(pkgs []*instrument.Package, f *testFlags, outcomes []testOutcome, interrupted string) (string, error) {
	dir := moduleDirOf(pkgs)
	if dir == "" {
		return "", nil
	}
	sched, err := store.ScheduleDir(dir)
	if err != nil {
		return "", err
	}
	runs := filepath.Join(filepath.Dir(sched), "runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		return "", fmt.Errorf("save run: %w", err)
	}
	doc := &report.Summary{Version: 1, Time: time.Now().UTC(), Origin: f.origin, Packages: f.packages, Run: f.run,
		Strategy: f.strategy, Params: f.params, Schedules: f.schedules, Seed: f.seed, Interrupted: interrupted, Tests: outcomes}
	if f.shard.Count > 1 {
		doc.Part = strategy.Part{Levels: []strategy.PartLevel{f.shard}}.String()
	}
	return doc.Save(runs)
}

// RelPos is pos ("file:line:col") with its file relative to wd when it is under wd.
func RelPos(wd, pos string) string {
	if rel, err := filepath.Rel(wd, pos); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return pos
}

// WhyEnded says how a test binary that reported no result ended.
func WhyEnded(err error) string {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "it exited with status 0 before the test's result: the test or the code under test called os.Exit(0)"
	case errors.As(err, &ee) && ee.Exited():
		return fmt.Sprintf("it exited with status %d before the test's result: the test or the code under test called os.Exit (log.Fatal does too), or the test binary failed before the test ran", ee.ExitCode())
	case errors.As(err, &ee):
		return fmt.Sprintf("it was ended by a signal (%v)", ee.ProcessState)
	}
	return err.Error()
}

// saveInstrumentation writes the instrumentation document of every package of the main
// modules to the results store: the constructs the rewriter left as they were, for the
// language server. A package without problems gets a document without them, so fixed
// problems disappear.
func saveInstrumentation(res *instrument.Result) error {
	for _, p := range res.Packages {
		if p.ModuleDir == "" {
			continue
		}
		doc := &findings.Instrumentation{Package: p.ImportPath, Time: time.Now().UTC()}
		var files []string
		for _, pr := range res.Problems {
			if filepath.Dir(pr.Pos.Filename) != p.Dir {
				continue
			}
			rel, err := filepath.Rel(p.ModuleDir, pr.Pos.Filename)
			if err != nil || strings.HasPrefix(rel, "..") {
				continue
			}
			rel = filepath.ToSlash(rel)
			doc.Problems = append(doc.Problems, findings.Problem{
				Pos: fmt.Sprintf("%s:%d:%d", rel, pr.Pos.Line, pr.Pos.Column), File: rel,
				Line: pr.Pos.Line, Col: pr.Pos.Column, Message: pr.Msg,
			})
			files = append(files, rel)
		}
		doc.Files = findings.HashFiles(p.ModuleDir, files)
		if err := doc.Save(p.ModuleDir); err != nil {
			return err
		}
	}
	return nil
}
