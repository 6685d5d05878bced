package dap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-dap"

	"github.com/interleave-dev/interleave/engine/control"
	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/instrument"
	"github.com/interleave-dev/interleave/engine/runopts"
	"github.com/interleave-dev/interleave/engine/runs"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/srcmap"
	"github.com/interleave-dev/interleave/engine/store"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// launchArgs are the arguments of a launch request (a launch.json configuration of type
// "interleave"): the session's own attributes, and the exploration's options, which package
// runopts checks as it does interleave.runTest's (strategy and its parameters — "d": 3 for
// pct —, schedules, seed, time, points, races, max-steps, tags).
type launchArgs struct {
	// Mode is "explore" (the default) or "replay".
	Mode string `json:"mode"`
	// Program is the directory of the package to test (or a file in it).
	Program string `json:"program"`
	// Test is the test to explore (explore; optional when the package has one test).
	Test string `json:"test"`
	// ScheduleFile is the schedule to replay (replay).
	ScheduleFile string `json:"scheduleFile"`
	// StopOnEntry pauses a replay at its first scheduling point.
	StopOnEntry bool `json:"stopOnEntry"`
	// BuildFlags are passed to the build (-tags ...).
	BuildFlags []string `json:"buildFlags"`
	// Cwd resolves relative paths (default: the adapter's working directory).
	Cwd string `json:"cwd"`
	// Env adds variables to the test process's environment.
	Env map[string]string `json:"env"`
	// Then is the strategy that picks the steps once an execution has left its schedule
	// (manual scheduling): "random", "pct:d=2", ...; empty: no preemption.
	Then string `json:"then"`

	// The exploration's options (runopts.Options): Points is the scheduling-points mode,
	// "all" (the default: every shared-memory access is a step) or "sync" (synchronization
	// only); Races is "report" (the default: races are findings), "fail" (the first race is a
	// bug) or "off"; maxSteps is the livelock bound (0: the engine's default); strictLeaks
	// makes every goroutine left after the test a leak, as interleave test's -strict-leaks.
	Strategy    string `json:"-"`
	Schedules   int    `json:"-"`
	Seed        uint64 `json:"-"`
	Points      string `json:"-"`
	Races       string `json:"-"`
	params      map[string]string
	time        time.Duration
	maxSteps    int
	strictLeaks bool
}

// sessionKeys are the launch attributes of the session itself (launchArgs' JSON fields);
// the others are the exploration's options.
var sessionKeys = []string{"mode", "program", "test", "scheduleFile", "stopOnEntry", "buildFlags", "cwd", "env", "then"}

// vscodeKeys are launch attributes that VS Code and the debug adapter protocol define.
var vscodeKeys = map[string]bool{
	"type": true, "request": true, "name": true, "preLaunchTask": true, "postDebugTask": true,
	"internalConsoleOptions": true, "debugServer": true, "presentation": true, "console": true,
	"noDebug": true, "envFile": true, "showLog": true,
}

// parseLaunchArgs decodes and checks a launch request's arguments.
func parseLaunchArgs(raw json.RawMessage, allowBuildFlags bool) (*launchArgs, error) {
	a := &launchArgs{}
	if len(raw) == 0 {
		return nil, errors.New("launch: no arguments")
	}
	if err := json.Unmarshal(raw, a); err != nil {
		return nil, fmt.Errorf("launch arguments: %w", err)
	}
	var all map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&all); err != nil {
		return nil, fmt.Errorf("launch arguments: %w", err)
	}
	opts := map[string]any{}
	for k, v := range all {
		if contains(sessionKeys, k) || vscodeKeys[k] || strings.HasPrefix(k, "__") {
			continue
		}
		opts[k] = v
	}
	o, err := runopts.Parse(opts, runopts.Config{Surface: runopts.Launch, DefaultStrategy: explore.DefaultStrategy, Also: sessionKeys})
	if err != nil {
		return nil, fmt.Errorf("launch: %w", err)
	}
	a.Strategy, a.params, a.Schedules, a.Seed, a.time = o.Strategy, o.Params, o.Schedules, o.Seed, o.Time
	a.Points, a.Races, a.maxSteps, a.strictLeaks = o.Points, o.Races, o.MaxSteps, o.StrictLeaks
	if a.Cwd == "" {
		a.Cwd, _ = os.Getwd()
	}
	abs := func(p string) string {
		if p != "" && !filepath.IsAbs(p) {
			return filepath.Join(a.Cwd, p)
		}
		return p
	}
	a.Program, a.ScheduleFile = abs(a.Program), abs(a.ScheduleFile)
	if err := checkBuildFlags(a.BuildFlags, allowBuildFlags); err != nil {
		return nil, err
	}
	if len(o.Tags) > 0 {
		a.BuildFlags = append(a.BuildFlags, "-tags="+strings.Join(o.Tags, ","))
	}
	if a.Then != "" {
		name, params, err := strategy.Parse(a.Then)
		if err == nil {
			_, err = strategy.New(name, params, 1)
		}
		if err != nil {
			return nil, fmt.Errorf("launch: then: %w", err)
		}
	}
	switch a.Mode {
	case "", "explore":
		a.Mode = "explore"
		if a.Program == "" {
			return nil, errors.New(`launch: explore needs "program", the directory of the package to test`)
		}
		if st, err := os.Stat(a.Program); err != nil {
			return nil, fmt.Errorf("launch: program: %w", err)
		} else if !st.IsDir() {
			a.Program = filepath.Dir(a.Program)
		}
		if a.Strategy == "" {
			// The default of interleave test: the debugger found in 29 schedules what the
			// command found in 2. Parameters given without a strategy are PCT's, as they
			// were checked.
			a.Strategy = explore.ToolStrategy
			if len(a.params) > 0 {
				a.Strategy = explore.DefaultStrategy
			}
		}
		if a.Schedules == 0 && !o.Has("time") {
			a.Schedules = explore.DefaultSchedules
		}
		if a.Seed == 0 {
			a.Seed = 1
		}
	case "replay":
		if a.ScheduleFile == "" {
			return nil, errors.New(`launch: replay needs "scheduleFile", the schedule to replay`)
		}
		if len(a.params) > 0 {
			return nil, fmt.Errorf("launch: unknown attribute(s) %s for a replay", strings.Join(sortedKeys(a.params), ", "))
		}
	default:
		return nil, fmt.Errorf("launch: mode %q: want \"explore\" or \"replay\"", a.Mode)
	}
	return a, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// target is the test process of a session and what the adapter knows about its build.
type target struct {
	args      *launchArgs
	ctl       *controlConn
	proc      process
	vars      variableReader
	novars    error // why vars is nil
	work      string
	moduleDir string
	test      schedule.Test
	file      *schedule.File // the schedule replayed (replay mode)
	// sentSteps are the steps of the last run command (the test process keeps them).
	sentSteps []schedule.Step
	// points are the lines with scheduling points, by absolute file name.
	points map[string]map[int]bool
	stderr *tail

	closeOnce sync.Once
}

// call sends a command to the test process, letting it run first, and waits for the reply.
func (t *target) call(c control.Command) (*control.Reply, error) {
	t.proc.run()
	return t.ctl.call(c)
}

// send sends a command without waiting.
func (t *target) send(c control.Command) error {
	t.proc.run()
	return t.ctl.send(c)
}

// close stops the test process and removes the build directory.
func (t *target) close() {
	t.closeOnce.Do(func() {
		if t.ctl != nil {
			t.ctl.send(control.Command{Cmd: "quit", G: -1})
			t.ctl.close()
		}
		if t.proc != nil {
			t.proc.kill()
		}
		if t.work != "" {
			os.RemoveAll(t.work)
		}
	})
}

// onLaunchRequest checks the launch configuration, answers, then builds the test, starts it
// under the adapter's control and sends the initialized event; configurationDone starts
// exploring or replaying. The response comes before the build: VS Code shows a session (its
// Call Stack entry, its Debug Console, its progress) only once its launch is answered, and a
// cold build takes up to a minute, during which the Run and Debug view looked idle and the
// Debug Console stayed empty. What goes wrong in the build ends the session with the reason
// in a notification, as a launch error did.
func (s *Session) onLaunchRequest(req *dap.LaunchRequest) {
	if s.currentTarget() != nil || s.building.Load() {
		s.sendError(&req.Request, errors.New("launch: the session already has a test process"))
		return
	}
	a, err := parseLaunchArgs(req.Arguments, s.cfg.AllowBuildFlags)
	if err != nil {
		s.sendError(&req.Request, err)
		return
	}
	t, pkgDir, err := s.prepareTarget(a)
	if err != nil {
		s.sendError(&req.Request, err)
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	s.mu.Lock()
	s.cancelBuild = cancel
	s.mu.Unlock()
	s.building.Store(true)
	s.send(&dap.LaunchResponse{Response: s.response(&req.Request)})
	err = s.startTarget(ctx, t, pkgDir)
	s.building.Store(false)
	s.mu.Lock()
	s.cancelBuild = nil
	closed := s.closed
	if err == nil && !closed {
		s.target = t
	}
	s.mu.Unlock()
	switch {
	case closed:
		t.close()
		return
	case err != nil:
		t.close()
		if ctx.Err() != nil {
			// Stop during the build: the developer asked for it, no notification.
			s.terminatedAs("console", "terminated by the client during the build")
			return
		}
		s.terminated(err.Error())
		return
	}
	s.dbg = debugState{}
	go s.watch(t)
	s.sendEvent(&dap.ProcessEvent{Event: s.event("process"), Body: dap.ProcessEventBody{Name: t.test.Package + " " + a.Test, SystemProcessId: t.proc.pid(), IsLocalProcess: true, StartMethod: "launch"}})
	s.sendEvent(&dap.InitializedEvent{Event: s.event("initialized")})
}

// watch reports the end of the test process when nobody asked for it.
func (s *Session) watch(t *target) {
	select {
	case <-t.proc.exited():
	case <-t.ctl.dead:
	}
	s.mu.Lock()
	current := s.target == t
	if current {
		s.target = nil
	}
	s.mu.Unlock()
	if !current {
		return // disconnect or terminate stopped it
	}
	t.close()
	why := "the test process ended"
	if err := t.proc.exitErr(); err != nil {
		why += ": " + err.Error()
	}
	if tl := t.stderr.String(); tl != "" {
		why += "\n" + tl
	}
	why += "\nschedules found so far are kept in " + filepath.Join(t.moduleDir, store.Dir, "schedules")
	s.terminated(why)
}

// prepareTarget checks what a launch can check at once — the package's module, the schedule
// file and the build flags it records — and returns the target to build and the package's
// directory.
func (s *Session) prepareTarget(a *launchArgs) (_ *target, pkgDir string, err error) {
	t := &target{args: a}
	pkgDir = a.Program
	if a.Mode == "replay" {
		f, err := schedule.Load(a.ScheduleFile)
		if err != nil {
			return nil, "", fmt.Errorf("launch: %w", err)
		}
		root, err := store.ModuleRoot(f.Test.Module, filepath.Dir(a.ScheduleFile), a.Cwd)
		if err != nil {
			return nil, "", fmt.Errorf("launch: %w", err)
		}
		// The schedule's positions as they are in the source now (comments, blank lines,
		// gofmt and edits elsewhere moved them).
		f, _ = srcmap.Relocate(f, root)
		t.file = f
		t.moduleDir = root
		rel := strings.TrimPrefix(strings.TrimPrefix(f.Test.Package, f.Test.Module), "/")
		pkgDir = filepath.Join(root, filepath.FromSlash(rel))
		a.Test = f.Test.Name
	} else {
		root, _, ok := store.FindModule(pkgDir)
		if !ok {
			return nil, "", fmt.Errorf("launch: %s is not in a Go module", pkgDir)
		}
		t.moduleDir = root
	}
	if _, err := filepath.Rel(t.moduleDir, pkgDir); err != nil {
		return nil, "", fmt.Errorf("launch: %w", err)
	}
	if a.Mode == "replay" {
		// A replay builds the test as its schedule was found: the modules instrumented on
		// request and the build flags the file records (only flags that run nothing).
		if err := instrument.CheckRecordedFlags(a.ScheduleFile, t.file.BuildFlags); err != nil {
			return nil, "", fmt.Errorf("launch: %w", err)
		}
	}
	return t, pkgDir, nil
}

// startTarget builds the test binary of t and starts it, connected to a new control listener;
// ctx stops the build.
func (s *Session) startTarget(ctx context.Context, t *target, pkgDir string) (err error) {
	a := t.args
	rel, err := filepath.Rel(t.moduleDir, pkgDir)
	if err != nil {
		return fmt.Errorf("launch: %w", err)
	}
	t.work, err = instrument.WorkDir("interleave-dap")
	if err != nil {
		return fmt.Errorf("launch: %w", err)
	}
	s.output("console", fmt.Sprintf("instrumenting and building %s ...\n", pkgDir))
	// A cold build takes seconds to minutes: the client shows it as progress from the start.
	buildID := "build-" + strconv.Itoa(int(time.Now().UnixNano()%1e9))
	if s.progress {
		s.sendEvent(&dap.ProgressStartEvent{Event: s.event("progressStart"), Body: dap.ProgressStartEventBody{ProgressId: buildID,
			Title: "Building " + filepath.Base(pkgDir), Message: "instrumenting and building the test binary"}})
	}
	buildStart := time.Now()
	flags := append([]string(nil), a.BuildFlags...)
	var modules []string
	if t.file != nil {
		// A replay builds the test as its schedule was found: the modules instrumented on
		// request and the build flags the file records (only flags that run nothing).
		flags = append(flags, t.file.BuildFlags...)
		modules = t.file.Instrument
	}
	flags = append(flags, "-gcflags=all=-N -l")
	res, err := instrument.Build(ctx, instrument.Config{Dir: t.moduleDir, Patterns: []string{"./" + filepath.ToSlash(rel)}, BuildFlags: flags,
		Modules: modules, Work: filepath.Join(t.work, "build"), Cache: s.cfg.Cache, Output: outputWriter{s, "stderr"}})
	if err != nil {
		s.progressEnd(buildID, "build failed")
	} else if res.Cached {
		s.progressEnd(buildID, fmt.Sprintf("unchanged: the cached build (%.1fs)", time.Since(buildStart).Seconds()))
	} else {
		s.progressEnd(buildID, fmt.Sprintf("built in %.1fs", time.Since(buildStart).Seconds()))
	}
	if err != nil {
		var ie *instrument.Error
		if errors.As(err, &ie) {
			return fmt.Errorf("%s failed: %s", ie.Op, strings.TrimSpace(ie.Detail))
		}
		return fmt.Errorf("instrument %s: %w", pkgDir, err)
	}
	for _, p := range res.Problems {
		s.output("console", fmt.Sprintf("not instrumented: %s: %s\n", p.Pos, p.Msg))
	}
	var pkg *instrument.Package
	for _, p := range res.Packages {
		if p.Binary != "" {
			pkg = p
		}
	}
	if pkg == nil {
		return fmt.Errorf("launch: %s has no tests", pkgDir)
	}
	if a.Test == "" || a.Mode == "explore" {
		tests, err := listTests(pkg.Binary, pkg.Dir)
		if err != nil {
			return err
		}
		switch {
		case a.Test == "" && len(tests) == 1:
			a.Test = tests[0]
		case a.Test == "":
			return fmt.Errorf(`launch: "test" is required: %s has tests %s`, pkg.ImportPath, strings.Join(tests, ", "))
		case !contains(tests, a.Test):
			return fmt.Errorf("launch: package %s has no test %s (it has %s)", pkg.ImportPath, a.Test, strings.Join(tests, ", "))
		}
	}
	t.points = make(map[string]map[int]bool, len(res.Points))
	for file, lines := range res.Points {
		t.points[file] = make(map[int]bool, len(lines))
		for _, l := range lines {
			t.points[file][l] = true
		}
	}
	if t.ctl, err = listenControl(); err != nil {
		return err
	}
	t.stderr = &tail{next: outputWriter{s, "stderr"}}
	env := os.Environ()
	for _, k := range sortedKeys(a.Env) {
		env = append(env, k+"="+a.Env[k])
	}
	env = append(env, "INTERLEAVE_DEBUG="+t.ctl.addr(), "INTERLEAVE_REPLAY=", "INTERLEAVE_STRATEGY=")
	env = append(env, pkg.BuildEnv()...)
	t.proc, err = s.startProcess(pkg.Binary, runArgs(a.Test), pkg.Dir, env, outputWriter{s, "stdout"}, t.stderr)
	if err != nil {
		return err
	}
	t.vars, t.novars = t.proc.debugger()
	hello, err := t.ctl.accept(ctx, t.proc.exited())
	if err != nil {
		if tl := t.stderr.String(); tl != "" {
			err = fmt.Errorf("%w:\n%s", err, tl)
		}
		return fmt.Errorf("launch: %w", err)
	}
	if hello.Test != nil {
		t.test = *hello.Test
	}
	if t.file != nil {
		if err := t.file.Check(schedule.Test{Module: t.test.Module, Package: t.test.Package, Name: t.test.Name}); err != nil {
			return fmt.Errorf("launch: %w", err)
		}
	}
	return nil
}

// startProcess starts the test binary under Delve, or plainly when Delve is off or cannot
// start it (then the Locals scope says why).
func (s *Session) startProcess(bin string, args []string, dir string, env []string, stdout io.Writer, stderr *tail) (process, error) {
	var why error = errors.New("Delve is turned off")
	if !s.cfg.NoDelve {
		p, err := startDelve(bin, args, dir, env, stdout, stderr)
		if err == nil {
			return p, nil
		}
		s.log.Printf("Delve: %v", err)
		s.output("stderr", fmt.Sprintf("interleave dap: cannot start the test under Delve (%v): no Locals\n", err))
		why = err
	}
	return startExec(bin, args, dir, env, stdout, stderr, why)
}

// onConfigurationDoneRequest starts exploring or replaying.
func (s *Session) onConfigurationDoneRequest(req *dap.ConfigurationDoneRequest) {
	s.send(&dap.ConfigurationDoneResponse{Response: s.response(&req.Request)})
	t := s.currentTarget()
	if t == nil {
		return
	}
	if t.args.Mode == "explore" {
		s.explore(t)
		return
	}
	s.startReplay(t, t.file)
}

// explore explores the test with progress events until the first bug, and stops there.
func (s *Session) explore(t *target) {
	a := t.args
	id := "explore-" + strconv.Itoa(int(time.Now().UnixNano()%1e9))
	title := fmt.Sprintf("Exploring %s with %s", a.Test, a.Strategy)
	if s.progress {
		s.sendEvent(&dap.ProgressStartEvent{Event: s.event("progressStart"), Body: dap.ProgressStartEventBody{ProgressId: id, Title: title, Cancellable: true, Message: "starting", Percentage: 0}})
	} else {
		s.output("console", title+" ...\n")
	}
	var mu sync.Mutex
	t.ctl.pmu.Lock()
	t.ctl.progress = func(p *control.Progress) {
		mu.Lock()
		defer mu.Unlock()
		rate := 0.0
		if p.Elapsed > 0 {
			rate = float64(p.Schedules) / p.Elapsed
		}
		pct := 0.0
		if a.Schedules > 0 {
			pct = 100 * float64(p.Schedules) / float64(a.Schedules)
		}
		msg := fmt.Sprintf("%d schedules, %.0f schedules/s, %d distinct interleavings", p.Schedules, rate, p.Interleavings)
		if !s.progress {
			s.output("console", msg+"\n")
			return
		}
		s.sendEvent(&dap.ProgressUpdateEvent{Event: s.event("progressUpdate"), Body: dap.ProgressUpdateEventBody{ProgressId: id, Message: msg, Percentage: int(pct)}})
	}
	t.ctl.pmu.Unlock()
	s.exploring.Store(true)
	r, err := t.call(control.Command{Cmd: "explore", Strategy: a.Strategy, Params: a.params, Seed: a.Seed, Schedules: a.Schedules, Time: a.time,
		Points: a.Points, Races: a.Races, MaxSteps: a.maxSteps, StrictLeaks: a.strictLeaks, G: -1})
	s.exploring.Store(false)
	if err != nil {
		s.progressEnd(id, "failed")
		s.stopTarget("exploration failed: " + err.Error())
		return
	}
	x := r.Explored
	rate := 0.0
	if x.Elapsed > 0 {
		rate = float64(x.Schedules) / x.Elapsed
	}
	summary := fmt.Sprintf("%d schedules (%d distinct interleavings, %s, %.0f schedules/s)", x.Schedules, x.Interleavings, a.Strategy, rate)
	// The final count, also when the exploration was too short for a progress reply.
	t.ctl.pmu.Lock()
	progress := t.ctl.progress
	t.ctl.progress = nil
	t.ctl.pmu.Unlock()
	progress(&x.Progress)
	s.progressEnd(id, summary)
	for _, r := range x.Races {
		s.output("console", raceLine(r))
	}
	if x.Notice != "" {
		s.output("console", "interleave: "+x.Notice+"\n")
	}
	if err := t.saveRun(x); err != nil {
		s.output("console", fmt.Sprintf("interleave: the summary of this exploration was not written: %v\n", err))
	}
	if x.Error != "" && x.Bug == nil {
		s.stopTarget("exploration stopped: " + x.Error)
		return
	}
	if x.Bug == nil {
		msg := "no bug in " + summary
		if x.Stopped == "canceled" {
			msg = "exploration canceled: no bug in " + summary
		}
		if x.Exhausted != "" {
			msg += ": " + x.Exhausted
		}
		s.stopTarget(msg)
		return
	}
	f := x.File
	if f == nil || f.Bug == nil {
		s.stopTarget("exploration found a bug but returned no schedule: " + x.Error)
		return
	}
	s.output("console", fmt.Sprintf("%s found after %s\n%s\nschedule: %s\n", x.Bug.Kind, summary, x.Bug.Message, f.Path))
	t.file = f
	s.dbg.origin = f
	c := t.runCommand(f)
	c.Stop = max(f.Bug.Step-1, 0)
	s.run(t, c, "exception")
}

// saveRun writes the exploration's run summary to the results store, as interleave test
// writes its runs' (the findings document and the bug's schedule are the test process's).
func (t *target) saveRun(x *control.Explored) error {
	a := t.args
	dir, err := runs.Dir(t.moduleDir)
	if err != nil {
		return err
	}
	e := &explore.Event{Event: "result", Test: t.test.Name, Package: t.test.Package, Strategy: x.Strategy, Elapsed: x.Elapsed,
		Schedules: x.Schedules, Interleavings: x.Interleavings, Points: a.Points, Races: len(x.Races), Findings: x.Findings,
		Stopped: x.Stopped, Exhausted: x.Exhausted, Error: x.Error, Notice: x.Notice}
	if e.Strategy == "" {
		e.Strategy = a.Strategy
	}
	if x.Bug != nil {
		pos := x.Bug.Pos
		if rel, err := filepath.Rel(t.moduleDir, pos); err == nil && filepath.IsAbs(pos) && !strings.HasPrefix(rel, "..") {
			pos = filepath.ToSlash(rel) // a failure's position, from runtime.Caller
		}
		e.Buggy = 1
		e.Bug = &explore.EventBug{Kind: x.Bug.Kind, Message: x.Bug.Message, Position: pos, Step: x.Bug.Step}
		if f := x.File; f != nil {
			e.Bug.Schedule, e.Bug.Preemptions = f.Path, f.Result.Preemptions
		}
		e.FirstBug = x.Schedules
	}
	o := runs.Outcome{Package: t.test.Package, Test: t.test.Name, Result: e}
	if x.Error != "" && x.Bug == nil {
		o.Err = x.Error
	}
	doc := &runs.Summary{Version: 1, Time: time.Now().UTC(), Origin: RunOrigin, Packages: []string{t.test.Package},
		Run: "^" + regexp.QuoteMeta(t.test.Name) + "$", Strategy: a.Strategy, Params: a.params, Schedules: a.Schedules, Seed: a.Seed,
		Tests: []runs.Outcome{o}}
	_, err = doc.Save(dir)
	return err
}

// RunOrigin is the origin of the run summaries of explorations the debug adapter runs.
const RunOrigin = "interleave dap"

func (s *Session) progressEnd(id, msg string) {
	if s.progress {
		s.sendEvent(&dap.ProgressEndEvent{Event: s.event("progressEnd"), Body: dap.ProgressEndEventBody{ProgressId: id, Message: msg}})
	}
}

// startReplay starts replaying f, paused at its first scheduling point or running to the
// first breakpoint or its bug.
func (s *Session) startReplay(t *target, f *schedule.File) {
	s.dbg.origin = f
	c := t.runCommand(f)
	c.Stop = -1
	reason := ""
	if t.args.StopOnEntry {
		c.Stop, reason = 0, "entry"
	}
	s.run(t, c, reason)
}

// runCommand is the command that runs the schedule f from its start, as f was recorded (the
// same scheduling points; the race detector failing at the first race when f's bug is one;
// the step bound of a livelock or a leak).
func (t *target) runCommand(f *schedule.File) control.Command {
	c := control.Command{Cmd: "run", Steps: f.Steps, DataSeed: f.DataSeed, ExceptionAt: -1, G: -1, Points: f.Points, RacyPoints: f.RacyPoints, Races: "report",
		Then: t.args.Then, Seed: t.args.Seed, StrictLeaks: t.args.strictLeaks}
	if f.Bug != nil {
		c.ExceptionAt = f.Bug.Step - 1
		switch f.Bug.Kind {
		case "race":
			c.Races = "fail"
		case "livelock", "leak":
			// The bug is the step bound, or may be (goroutines still running after the test
			// at the bound): the same bound reproduces it (engine.ReplayMaxSteps).
			c.MaxSteps = max(f.Bug.Step, 1)
		}
	}
	return c
}

// onCancelRequest cancels the exploration in progress; what it found is kept.
func (s *Session) onCancelRequest(req *dap.CancelRequest) {
	s.send(&dap.CancelResponse{Response: s.response(&req.Request)})
	if t := s.currentTarget(); t != nil && s.exploring.Load() {
		t.send(control.Command{Cmd: "cancel", G: -1})
	}
}

// listTests lists the tests of a test binary.
func listTests(bin, dir string) ([]string, error) {
	cmd := instrument.Command(context.Background(), bin, "-test.list", ".")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("list the tests of %s: %w", bin, err)
	}
	var tests []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); instrument.IsListed(l) {
			tests = append(tests, l)
		}
	}
	return tests, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
