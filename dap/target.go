package dap

// The test process of a session: its build, its start under Delve or plainly, and the commands
// the adapter sends it.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-dap"
	"github.com/interleave-dev/interleave/engine/control"
	"github.com/interleave-dev/interleave/engine/instrument"
	"github.com/interleave-dev/interleave/engine/schedule"
)

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
		case !slices.Contains(tests, a.Test):
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
