package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync"
)

// T is the test handle of one execution. Its methods mean what testing.T's mean, per
// schedule: Error marks this execution failed (a bug of kind "fail") and the execution goes
// on; Fatal and FailNow also stop the calling goroutine; Skip skips the test; Cleanup functions
// run when the test body returns; TempDir is removed when the execution ends.
//
// A *testing.T cannot be used per schedule: once failed, it stays failed, and its output cannot
// be read back. The interleave package reports a failing schedule on the real *testing.T.
type T struct {
	e        *Exec
	name     string
	failed   bool
	skipped  bool
	logs     []string
	cleanups []func()
	tempDirs []string
	artifact string // ArtifactDir's directory, once made
	ctx      context.Context
	cancel   context.CancelFunc
	parent   *T // the test of a subtest (Run)
	// handle is the test's own handle (Bind), its real *testing.T; external probes the real
	// test's marks, and extFailed and extSkipped are the marks already seen (external.go).
	handle                any
	external              func() (failed, skipped bool)
	extFailed, extSkipped bool
	// completed is set once the test's function, its subtests and its cleanups are done:
	// logging or failing then panics, as in Go.
	completed bool

	// Subtests (subtest.go). paused is closed when the subtest's function calls Parallel or
	// the subtest is over, whichever comes first; that is when its Run returns. A parallel
	// subtest waits for released, closed when its parent's function returns, and closes
	// over when it is over. parallelSubs are a test's parallel subtests, waited for after
	// its function returns.
	paused       chan struct{}
	isParallel   bool
	released     chan struct{}
	over         chan struct{}
	parallelSubs []*T

	// Stress mode (NewStressT): no execution, real goroutines. mu guards logs, failed and
	// failure, which several goroutines may write at once; failure is the first failure's
	// message and position; calledParallel records a top-level Parallel (the test may run
	// beside others); draw is the iteration's source of the randomizer's values.
	mu             sync.Mutex
	failure        *Bug
	calledParallel bool
	draw           func(name string, sample func(*rand.Rand) float64) float64
}

// NewStressT returns the test handle of one iteration of a stress test called name, running
// for real (no execution): draw, when not nil, is the iteration's source of the randomizer's
// values (see Draw).
func NewStressT(name string, draw func(name string, sample func(*rand.Rand) float64) float64) *T {
	return &T{name: name, draw: draw}
}

// RunStress runs body as the test function of the stress-mode t, on the calling goroutine,
// then its parallel subtests and its Cleanup functions, as testing does, and removes its
// temporary directories. It reports whether the function returned (false: it stopped with
// FailNow, Fatal or Skip).
func RunStress(t *T, body func(*T)) (returned bool) {
	defer t.removeTempDirs()
	defer t.finish()
	defer t.stressExternal()
	t.enter()
	body(t)
	return true
}

// stressExternal turns the marks of the real test behind the stress-mode t (External) into
// its failure or skip, once its function is over.
func (t *T) stressExternal() {
	if t.external == nil {
		return
	}
	failed, skipped := t.external()
	t.mu.Lock()
	defer t.mu.Unlock()
	if failed && !t.extFailed {
		t.failed = true
		if t.failure == nil {
			t.failure = &Bug{Kind: Fail, Message: "the real *testing.T was marked failed by code that was not instrumented: its message is in the test's own log (interleave test -v shows it)"}
		}
	} else if skipped && !t.extSkipped {
		t.skipped = true
	}
}

// StressResult is what a stress-mode iteration's handle recorded.
type StressResult struct {
	Failed, Skipped, Parallel bool
	Message, Pos              string // the first failure's
	Logs                      []string
}

// StressResult returns what the stress-mode t recorded.
func (t *T) StressResult() StressResult {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := StressResult{Failed: t.failed, Skipped: t.skipped, Parallel: t.calledParallel, Logs: append([]string(nil), t.logs...)}
	if t.failure != nil {
		r.Message, r.Pos = t.failure.Message, t.failure.Pos
	}
	return r
}

// Draw returns a value of the randomizer (package random) for the input called name:
// sample applied to the execution's data source in a controlled goroutine (so that replaying
// the schedule draws it again), to the iteration's recorded source in stress mode, and to a
// randomly seeded source otherwise.
func (t *T) Draw(name string, sample func(*rand.Rand) float64) float64 {
	if t.draw != nil {
		return t.draw(name, sample)
	}
	if src := randOf("random." + name); src != nil {
		return sample(src.v2)
	}
	return sample(rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())))
}

// Name is the test's name.
func (t *T) Name() string { return t.name }

// Helper marks the caller as a test helper. Positions reported by the engine are those of the
// operations themselves, so this has no effect; it exists so that helpers compile unchanged.
func (t *T) Helper() {}

// Log records a log line for this execution.
func (t *T) Log(args ...any) { t.log(fmt.Sprintln(args...)) }

// Logf records a formatted log line for this execution.
func (t *T) Logf(format string, args ...any) { t.log(fmt.Sprintf(format, args...)) }

func (t *T) log(s string) {
	pos := ""
	if _, file, line, ok := runtime.Caller(2); ok {
		pos = fmt.Sprintf("%s:%d", file, line)
	}
	t.logAt(pos, s)
}

// logAt is log of a line that pos ("file:line") logged.
func (t *T) logAt(pos Pos, s string) {
	if t.e != nil && t.e.aborting {
		return // the execution is over: teardown logs nothing of it
	}
	if t.e != nil && t.e.cur != nil {
		t.e.deferStart(t.e.cur)
	}
	s = strings.TrimSuffix(s, "\n")
	line := s
	if pos != "" {
		line = shortFile(pos) + ": " + s
	}
	if !t.appendLog(line) {
		panic("Log in goroutine after " + t.name + " has completed: " + s)
	}
}

// appendLog adds line to the log of t, or, once t has completed, to that of its nearest
// ancestor that has not, as testing does (a goroutine of a subtest logging after the subtest
// returned, while its parent runs, writes to the parent's output). It reports false when
// t and all its ancestors have completed: Go panics then.
func (t *T) appendLog(line string) bool {
	for d := t; d != nil; d = d.parent {
		if d.e == nil {
			d.mu.Lock()
		}
		ok := !d.completed
		if ok {
			d.logs = append(d.logs, line)
		}
		if d.e == nil {
			d.mu.Unlock()
		}
		if ok {
			return true
		}
	}
	return false
}

// Fail marks this execution failed.
func (t *T) Fail() { t.failAt(3, "test failed") }

func (t *T) failAt(skip int, msg string) { t.failAtPos(skip+1, "", msg, nil) }

// ErrorAt is Error at pos ("file:line"), the place in the program the failure is about,
// rather than its caller's: the harness reports an example's unexpected output at the
// example.
func (t *T) ErrorAt(pos Pos, msg string) {
	t.logAt(pos, msg)
	t.failAtPos(2, pos, msg, nil)
}

// OutputDiffers is ErrorAt for an example whose output, output, differs from its output
// comment: the failure is a bug of the execution as ErrorAt's is, and the exploration compares
// the output across schedules (Bug.OutputDiffers): a difference that is the same in every
// schedule does not depend on the schedule, and is a notice, not a bug (exploration.go).
// output is what the comparison compares (for an unordered comparison, the sorted lines).
func (t *T) OutputDiffers(pos Pos, msg, output string) {
	t.logAt(pos, msg)
	t.failAtPos(2, pos, msg, &output)
}

// failAtPos is failAt, at pos when it is not ""; output, when not nil, is an example's output
// that differed from its comment's (OutputDiffers).
func (t *T) failAtPos(skip int, pos Pos, msg string, output *string) {
	e := t.e
	if e == nil {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.completed {
			panic("Fail in goroutine after " + t.name + " has completed")
		}
		t.failed = true
		if t.failure == nil {
			t.failure = &Bug{Kind: Fail, Message: msg, Pos: pos}
			if output != nil {
				t.failure.OutputDiffers, t.failure.Output = true, *output
			}
			if _, file, line, ok := runtime.Caller(skip); ok && pos == "" {
				t.failure.Pos = fmt.Sprintf("%s:%d", file, line)
			}
		}
		return
	}
	if e.cur != nil {
		e.deferStart(e.cur)
	}
	if t.completed && !e.aborting {
		panic("Fail in goroutine after " + t.name + " has completed")
	}
	t.failed = true
	if e.ended {
		return
	}
	bug := &Bug{Kind: Fail, Message: msg, Pos: pos}
	if output != nil {
		bug.OutputDiffers, bug.Output = true, *output
	}
	if _, file, line, ok := runtime.Caller(skip); ok && pos == "" {
		bug.Pos = fmt.Sprintf("%s:%d", file, line)
	}
	var g *goroutine
	if e.cur != nil && (!goroutineIdentity || e.cur.gp == getg()) {
		g = e.cur
	}
	if e.result.Bug == nil {
		bug.stack = callers(skip + 1)
	}
	e.recordBug(bug, g)
}

// Failed reports whether this execution failed.
func (t *T) Failed() bool {
	if t.e == nil {
		t.mu.Lock()
		defer t.mu.Unlock()
	}
	return t.failed
}

// Error is Log followed by Fail.
func (t *T) Error(args ...any) {
	msg := strings.TrimSuffix(fmt.Sprintln(args...), "\n")
	t.log(msg)
	t.failAt(2, msg)
}

// Errorf is Logf followed by Fail.
func (t *T) Errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	t.log(msg)
	t.failAt(2, msg)
}

// FailNow marks this execution failed and stops the calling goroutine.
func (t *T) FailNow() {
	t.failAt(2, "test failed (FailNow)")
	runtime.Goexit()
}

// Fatal is Log followed by FailNow.
func (t *T) Fatal(args ...any) {
	msg := strings.TrimSuffix(fmt.Sprintln(args...), "\n")
	t.log(msg)
	t.failAt(2, msg)
	runtime.Goexit()
}

// Fatalf is Logf followed by FailNow.
func (t *T) Fatalf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	t.log(msg)
	t.failAt(2, msg)
	runtime.Goexit()
}

// SkipNow marks the test skipped and stops the calling goroutine.
func (t *T) SkipNow() {
	t.skipped = true
	runtime.Goexit()
}

// Skip is Log followed by SkipNow.
func (t *T) Skip(args ...any) {
	t.log(fmt.Sprintln(args...))
	t.SkipNow()
}

// Skipf is Logf followed by SkipNow.
func (t *T) Skipf(format string, args ...any) {
	t.log(fmt.Sprintf(format, args...))
	t.SkipNow()
}

// Skipped reports whether the test was skipped.
func (t *T) Skipped() bool { return t.skipped }

// Cleanup registers f to run when the test body returns, last registered first.
func (t *T) Cleanup(f func()) { t.cleanups = append(t.cleanups, f) }

// TempDir returns a new temporary directory, removed when the execution ends.
func (t *T) TempDir() string {
	dir, err := os.MkdirTemp("", "interleave-")
	if err != nil {
		t.Fatalf("TempDir: %v", err)
	}
	t.tempDirs = append(t.tempDirs, dir)
	return dir
}

// ArtifactDir is testing.T.ArtifactDir: a directory for the test's output files. There is
// no -artifacts flag under interleave, so, as testing does without it, it is a temporary
// directory, the same for every call during one execution and removed when the execution ends.
func (t *T) ArtifactDir() string {
	if t.artifact == "" {
		t.artifact = t.TempDir()
	}
	return t.artifact
}

// Context returns a context canceled just before Cleanup functions run.
func (t *T) Context() context.Context {
	if t.ctx == nil {
		t.ctx, t.cancel = context.WithCancel(context.Background())
	}
	return t.ctx
}

// runCleanups runs on the test body's goroutine after the body returns.
func (t *T) runCleanups() {
	if t.cancel != nil {
		t.cancel()
	}
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

func (t *T) removeTempDirs() {
	for _, d := range t.tempDirs {
		os.RemoveAll(d)
	}
}

func shortFile(file string) string {
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		return file[i+1:]
	}
	return file
}
