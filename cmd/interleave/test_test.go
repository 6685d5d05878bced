package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/test"
	"github.com/interleave-dev/interleave/engine/schedule"
)

var (
	buildOnce sync.Once
	binPath   string
	binErr    error
)

// interleaveBinary builds the interleave command once for the tests that run it as a user
// does, in another directory.
func interleaveBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "interleave-cmd-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "interleave")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = err
			binPath = string(out)
		}
	})
	if binErr != nil {
		t.Fatalf("build interleave: %v\n%s", binErr, binPath)
	}
	return binPath
}

// interleaveIn runs the interleave command in dir and returns its exit code and output.
func interleaveIn(t *testing.T, dir string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(interleaveBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run interleave: %v", err)
	}
	return code, out.String(), errOut.String()
}

// The examples of testdata/examples: each bug is found by the default strategy within the
// default budget of 10,000 schedules, its schedule replays to the same bug, and no file of
// the example is modified.
func TestExamplesEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds eight instrumented test binaries")
	}
	examples := []struct {
		dir, test, kind, want string
	}{
		{"counter", "TestConcurrentWithdraw", "fail", "withdrawals succeeded"},
		{"lockorder", "TestOppositeTransfers", "deadlock", ""},
		{"leak", "TestLoadFailure", "leak", ""},
		// Add in the goroutine shows as a task not yet done when Wait returns, or as the
		// runtime's "WaitGroup is reused before previous Wait has returned" when an Add
		// comes while Wait is waking: whichever the exploration meets first.
		{"wgadd", "TestRunnerWait", "fail|panic", ""},
		{"closedchan", "TestCloseWhileSending", "panic", "send on closed channel"},
		{"timeout", "TestProfile", "fail", "timed out"},
		{"rlock", "TestLookupDuringPut", "deadlock", ""},
		{"doublecheck", "TestConcurrentLookup", "fail", ""},
	}
	root, err := filepath.Abs("../../testdata/examples")
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples {
		t.Run(ex.dir, func(t *testing.T) {
			dir := filepath.Join(root, ex.dir)
			before := gitStatus(t, dir)
			// Found by exploring, not by an earlier run's saved schedule.
			code, out, errOut := interleaveIn(t, dir, nil, "test", "-json", "-saved=false", "-minimize", "2s", ".")
			if code != 1 {
				t.Fatalf("interleave test: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			final := finalEvent(t, out, ex.test)
			if final.Action != "fail" || final.Bug == nil || !slices.Contains(strings.Split(ex.kind, "|"), final.Bug.Kind) {
				t.Fatalf("final event %+v, want a %s bug\n%s", final, ex.kind, out)
			}
			if !strings.Contains(final.Bug.Message, ex.want) {
				t.Errorf("bug message %q lacks %q", final.Bug.Message, ex.want)
			}
			if final.Bug.Position == "" || final.Schedules == nil || *final.Schedules > 10000 {
				t.Errorf("final event lacks position or schedules: %+v", final)
			}
			if runtime.GOOS == "linux" && final.PeakMemory < 1<<20 {
				t.Errorf("final event's PeakMemory %d: want the test process's peak, at least 1 MB", final.PeakMemory)
			}
			if final.MaxGoroutines < 2 || final.MaxSteps < final.MaxGoroutines {
				t.Errorf("final event's MaxGoroutines %d and MaxSteps %d: want a test's goroutines (at least its own and one more) and at least as many steps", final.MaxGoroutines, final.MaxSteps)
			}
			t.Logf("%s: %s after %d schedule(s) at %s, %d preemption(s)", ex.dir, final.Bug.Kind, *final.Schedules, final.Bug.Position, final.Bug.Preemptions)
			f, err := schedule.Load(final.Bug.Schedule)
			if err != nil {
				t.Fatalf("saved schedule: %v", err)
			}
			if f.Bug == nil || f.Bug.Kind != final.Bug.Kind {
				t.Fatalf("saved schedule's bug %+v, want %s", f.Bug, final.Bug.Kind)
			}
			code, out, errOut = interleaveIn(t, dir, nil, "replay", final.Bug.Schedule)
			if code != 1 || !strings.Contains(out, final.Bug.Kind+" found by replay") {
				t.Fatalf("replay: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if after := gitStatus(t, dir); after != before {
				t.Errorf("git status of %s changed:\nbefore:\n%s\nafter:\n%s", ex.dir, before, after)
			}
		})
	}
}

func gitStatus(t *testing.T, dir string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--", ".").Output()
	if err != nil {
		t.Skipf("git status: %v (not a git checkout)", err)
	}
	return string(out)
}

func finalEvent(t *testing.T, out, name string) test.JSONEvent {
	t.Helper()
	var final test.JSONEvent
	found := false
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var e test.JSONEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("-json output line %q: %v", sc.Text(), err)
		}
		if e.Test == name && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
			final, found = e, true
		}
	}
	if !found {
		t.Fatalf("no final event for %s in:\n%s", name, out)
	}
	return final
}

// writeModule writes a module of files (name -> content) into a new directory.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.22\n"
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const racyTest = `package m

import (
	"sync"
	"testing"
)

func TestLostUpdate(t *testing.T) {
	n := 0
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n++
		}()
	}
	wg.Wait()
	if n != 2 {
		t.Fatalf("n = %d, want 2", n)
	}
}
`

// Bad input: each gives exit status 2 and a message that says what and where.
func TestTestBadInput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	t.Run("compile error", func(t *testing.T) {
		dir := writeModule(t, map[string]string{"m.go": "package m\n\nfunc F() int {\n\treturn \"x\"\n}\n", "m_test.go": racyTest})
		code, _, errOut := interleaveIn(t, dir, nil, "test", ".")
		if code != 2 || !strings.Contains(errOut, "m.go:4:") || !strings.Contains(errOut, "nothing was run") {
			t.Fatalf("exit %d, want 2 with the original position m.go:4\n%s", code, errOut)
		}
	})
	dir := writeModule(t, map[string]string{"m_test.go": racyTest})
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"bad skip regexp", []string{"test", "-skip", "(", "."}, `-skip "("`},
		{"unknown strategy", []string{"test", "-strategy", "fastest", "."}, `unknown strategy "fastest"`},
		{"unknown flag", []string{"test", "-strategy", "pct", "-depth", "3", "."}, `flag provided but not defined: -depth`},
		{"unknown flag swallows nothing", []string{"test", "-shedules", "./nosuchdir"}, `flag provided but not defined: -shedules`},
		{"another strategy's parameter", []string{"test", "-strategy", "pct", "-smax", "3", "."}, `pct: unknown parameter "smax"`},
		{"negative time", []string{"test", "-time", "-1s", "."}, `-time "-1s": want a duration ≥ 0`},
		{"negative total time", []string{"test", "-total-time", "-1s", "."}, `-total-time "-1s": want a duration ≥ 0`},
		{"negative max-steps", []string{"test", "-max-steps", "-5", "."}, `-max-steps "-5": want a number of steps ≥ 0`},
		{"negative minimize", []string{"test", "-minimize", "-1s", "."}, `-minimize "-1s": want a duration ≥ 0`},
		{"negative until", []string{"replay", "-until", "-3", "x.json"}, `-until -3: want a step number ≥ 0`},
		{"negative minimize time", []string{"minimize", "-time", "-1s", "x.json"}, `-time -1s: want a duration ≥ 0`},
		{"bad parameter", []string{"test", "-strategy", "pct", "-d", "zero", "."}, `parameter d must be an integer`},
		{"bad regexp", []string{"test", "-run", "(", "."}, `-run "("`},
		{"no package", []string{"test", "./nosuchdir"}, `nothing was run`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := interleaveIn(t, dir, nil, tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, want 2 with %q\nstdout:\n%s\nstderr:\n%s", code, tc.want, out, errOut)
			}
		})
	}

	// As go test: -run or -skip leaving no test is not an error.
	for _, args := range [][]string{{"-run", "TestNothing"}, {"-skip", "TestLostUpdate"}} {
		code, out, errOut := interleaveIn(t, dir, nil, append(append([]string{"test"}, args...), ".")...)
		if code != 0 || !strings.Contains(out, "ok  \texample.com/m\t[no tests to run]") {
			t.Errorf("test %v: exit %d, want 0 with [no tests to run]\nstdout:\n%s\nstderr:\n%s", args, code, out, errOut)
		}
	}

	// A schedule of the bug, then files that do not fit.
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-json", "-minimize", "0", ".")
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	path := finalEvent(t, out, "TestLostUpdate").Bug.Schedule
	edit := func(name string, change func(f *schedule.File)) string {
		f, err := schedule.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		change(f)
		p := filepath.Join(filepath.Dir(path), name)
		if err := f.Save(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name string
		file string
		want string
		args []string
	}{
		{"other test", edit("other.json", func(f *schedule.File) { f.Test.Name = "TestSomethingElse" }), "TestSomethingElse", nil},
		// Without -strict, other code is replayed anyway (TestScheduleReplaysAfterMoveAndChange).
		{"other code, strict", edit("older.json", func(f *schedule.File) { f.Test.Build = "0123456789abcdef" }), "0123456789abcdef", []string{"-strict"}},
		{"corrupt", func() string {
			p := filepath.Join(dir, "corrupt.json")
			os.WriteFile(p, []byte(`{"version": 1, "test": `), 0o644)
			return p
		}(), "corrupt.json", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := interleaveIn(t, dir, nil, append(append([]string{"replay"}, tc.args...), tc.file)...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, want 2 with %q\nstdout:\n%s\nstderr:\n%s", code, tc.want, out, errOut)
			}
			t.Logf("%s", errOut)
		})
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the original schedule is gone: %v", err)
	}
}

const nondeterministicTest = `package m

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// The first execution in the marker directory's life starts a goroutine that later ones do
// not: a test whose behaviour depends on state outside the schedule.
func TestDependsOnDisk(t *testing.T) {
	marker := filepath.Join(os.Getenv("MARKER_DIR"), "seen")
	_, err := os.Stat(marker)
	first := err != nil
	os.WriteFile(marker, nil, 0o644)
	var mu sync.Mutex
	var wg sync.WaitGroup
	if first {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			mu.Unlock()
		}()
	}
	wg.Wait()
	if first {
		t.Fatal("first execution fails")
	}
}
`

// A test that is nondeterministic on its own fails in its first execution only: the bug is
// not confirmed when its schedule is replayed in a fresh process, so it is a notice naming the
// schedule, not a bug; replaying that schedule says at which step it diverges, with exit
// status 2.
func TestNondeterministicTestDetectedAtReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	if runtime.GOOS == "windows" {
		t.Skip("uses /dev/fd")
	}
	dir := writeModule(t, map[string]string{"m_test.go": nondeterministicTest})
	env := []string{"MARKER_DIR=" + t.TempDir()}
	// -points all: the race-detection phase of the default would use up the first execution.
	code, out, errOut := interleaveIn(t, dir, env, "test", "-json", "-minimize", "0", "-points", "all", ".")
	if code != 0 {
		t.Fatalf("exit %d, want 0 (an unconfirmed bug is a notice)\n%s\n%s", code, out, errOut)
	}
	e := finalEvent(t, out, "TestDependsOnDisk")
	_, path, ok := strings.Cut(e.Notice, "its schedule is kept in ")
	if e.Action != "pass" || e.Bug != nil || !ok || !strings.Contains(e.Notice, "a fail (first execution fails) was seen in schedule 1, but not when its schedule was replayed in a fresh process") {
		t.Fatalf("TestDependsOnDisk: %s, bug %+v, notice %q: want a pass with a notice naming the unconfirmed bug's schedule", e.Action, e.Bug, e.Notice)
	}
	code, out, errOut = interleaveIn(t, dir, env, "replay", path)
	if code != 2 || !strings.Contains(errOut, "step") {
		t.Fatalf("replay: exit %d, want 2 with the step where it diverged\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	t.Logf("%s", errOut)
}

const earlierExecutionsTest = `package m

import (
	"os"
	"strconv"
	"sync"
	"testing"
)

// TestFifthRun fails in the fifth execution in a process: state kept in the process's
// environment, which no reset of package variables restores.
func TestFifthRun(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("RUNS_SO_FAR"))
	os.Setenv("RUNS_SO_FAR", strconv.Itoa(n+1))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done() }()
	wg.Wait()
	if n == 4 {
		t.Fatal("fifth run")
	}
}

func TestRealBug(t *testing.T) {
	var wg sync.WaitGroup
	n := 0
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := n
			n = v + 1
		}()
	}
	wg.Wait()
	if n != 2 {
		t.Fatalf("n = %d", n)
	}
}
`

// A bug is reported only when its schedule reproduces it in a fresh process: one that depends
// on the executions before it is a notice, and a real one is still a bug.
func TestBugsConfirmedInAFreshProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := writeModule(t, map[string]string{"m_test.go": earlierExecutionsTest})
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-json", "-minimize", "0", "-points", "all", "-strategy", "random", ".")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (TestRealBug)\n%s\n%s", code, out, errOut)
	}
	if e := finalEvent(t, out, "TestFifthRun"); e.Action != "pass" || !strings.Contains(e.Notice, "a fail (fifth run) was seen in schedule 5, but not when its schedule was replayed in a fresh process (the replay passed)") {
		t.Errorf("TestFifthRun: %s, notice %q: want a pass with a notice", e.Action, e.Notice)
	}
	if e := finalEvent(t, out, "TestRealBug"); e.Bug == nil || e.Bug.Kind != "fail" || e.Notice != "" {
		t.Errorf("TestRealBug: bug %+v, notice %q: want a confirmed fail", e.Bug, e.Notice)
	}
}

const exitTest = `package m

import (
	"os"
	"sync"
	"testing"
)

func TestExitInGoroutine(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		os.Exit(3)
	}()
	wg.Wait()
}
`

// A test that calls os.Exit ends its binary without a result: the message says so, with the
// status, instead of "ended without a result (<nil>)".
func TestOsExitIsExplained(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	if runtime.GOOS == "windows" {
		t.Skip("uses /dev/fd")
	}
	dir := writeModule(t, map[string]string{"m_test.go": exitTest})
	code, out, errOut := interleaveIn(t, dir, nil, "test", ".")
	if code != 2 || !strings.Contains(out+errOut, "exited with status 3 before the test's result") || !strings.Contains(out+errOut, "os.Exit") {
		t.Fatalf("exit %d, want 2 naming os.Exit and the status\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// A results store that cannot be written loses nothing: the bug is printed with every step of
// its schedule, and the error names the path and what went wrong.
func TestStoreNotWritable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := writeModule(t, map[string]string{"m_test.go": racyTest})
	if err := os.MkdirAll(filepath.Join(dir, ".interleave"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A file where the schedules' directory should be: mkdir fails as on a read-only store.
	if err := os.WriteFile(filepath.Join(dir, ".interleave", "schedules"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-minimize", "0", ".")
	wantErr := "mkdir " + filepath.Join(dir, ".interleave", "schedules") + ": not a directory"
	if code == 0 || !strings.Contains(out, "--- BUG: TestLostUpdate") || !strings.Contains(out, "the schedule (not saved; every step") ||
		!strings.Contains(out, "wg.wait") || !strings.Contains(errOut, wantErr) {
		t.Fatalf("exit %d, want the bug with its whole schedule and %q\nstdout:\n%s\nstderr:\n%s", code, wantErr, out, errOut)
	}
}

// interleave test -h lists every flag with its default, as go's flag package does.
func TestTestHelpShowsDefaults(t *testing.T) {
	var out bytes.Buffer
	if err := test.Run([]string{"-h"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-schedules N", "(default 10000)", "-strategy name", "(default portfolio)", "-minimize D", "(default 5s)",
		"-max-steps N", "(default adaptive, 100000 to 3200000)", "-time D", "(default 5s without -schedules)", "-total-time D", "(default 2m0s)", "-races mode", "(default report)", "-skip regexp", "-strict-leaks"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("interleave test -h lacks %q:\n%s", want, out.String())
		}
	}
}
