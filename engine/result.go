package engine

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/interleave-dev/interleave/engine/schedule"
)

// BugKind names a kind of bug. The names are part of the tool's interface (JSON output,
// schedule files, the editor).
type BugKind string

// The bugs the engine reports.
const (
	Panic    BugKind = "panic"    // a panic reached the top of a goroutine
	Fail     BugKind = "fail"     // the test failed (t.Error, t.Fatal)
	Deadlock BugKind = "deadlock" // no goroutine enabled, the test body among the blocked
	Leak     BugKind = "leak"     // the test returned, goroutines stay blocked forever
	Livelock BugKind = "livelock" // the step bound was exceeded
	Race     BugKind = "race"     // a data race (a failure only when asked)
)

// Bug is what went wrong in an execution.
type Bug struct {
	Kind    BugKind
	Message string
	// Value is the panic value, for panics.
	Value any `json:"-"`
	// Step is the step during which the bug happened (the number of steps executed).
	Step int
	// G is the goroutine that failed (for a deadlock or leak, the first blocked one).
	G GID
	// Pos is the position of the failing operation: the panic site, the failing check, the
	// blocked operation.
	Pos Pos
	// Goroutines are the states and stacks of every goroutine when the bug happened.
	Goroutines []GoroutineState
	// Logs are the test's log lines of this execution (t.Log, t.Error, ...).
	Logs []string
	// Delayed, when not empty, says how the execution delayed runnable goroutines past a
	// sleep or a timer before the bug (Config.Sleeps): "G2 had not run for 1ms when G0 woke
	// (sleep at x_test.go:12)". The message ends with it too.
	Delayed string
	// ClockAhead, when not empty, says that the bug came after the virtual clock ran ahead of
	// the program's work while it read the clock (clock.go): what the program saw of the time
	// then depends on how fast the clock ran, not on the schedule, and the bug is a notice.
	ClockAhead string
	// OutputDiffers says that the bug is an example's output differing from its output
	// comment (T.OutputDiffers), and Output is that output: the exploration reports the
	// difference as a bug only when it depends on the schedule (exploration.go,
	// exampleOutput).
	OutputDiffers bool   `json:"-"`
	Output        string `json:"-"`

	// stack is the failing goroutine's stack when it failed, for bugs after which the
	// goroutine went on (t.Error).
	stack []Frame
}

func (b *Bug) String() string {
	return fmt.Sprintf("%s at step %d in %v (%s): %s", b.Kind, b.Step, b.G, b.Pos, b.Message)
}

// GoroutineState describes one goroutine when an execution ended.
type GoroutineState struct {
	ID      GID
	Parent  GID
	Created Pos    // where the go statement is (empty for the test body)
	Status  string // "running", "enabled", "blocked", "done"
	Pending Op     // the operation it was about to execute
	Stack   []Frame
}

// Frame is one frame of a goroutine's stack.
type Frame struct {
	Func string
	File string
	Line int
}

// Pos returns the frame's position as "file:line".
func (f Frame) Pos() Pos { return fmt.Sprintf("%s:%d", f.File, f.Line) }

func (f Frame) String() string { return fmt.Sprintf("%s\n\t%s:%d", f.Func, f.File, f.Line) }

// Limitation is something the engine could not control. It is not a bug of the program.
type Limitation struct {
	Kind    string // "watchdog", "foreign"
	Message string
	Pos     Pos
}

// Result is the outcome of one execution.
type Result struct {
	// Bug is nil when the execution passed.
	Bug *Bug
	// Err is set when the strategy stopped the execution (a replay that diverged).
	Err error
	// Limitation is set when the execution was abandoned (the watchdog fired).
	Limitation *Limitation
	// Foreign counts calls from goroutines the engine did not start, which ran uncontrolled,
	// and ForeignPos lists the first positions they reached.
	Foreign    int
	ForeignPos []Pos
	// Steps is the number of steps, Goroutines the number of goroutines created, and
	// Choices the number of nondeterministic data choices made (a select between ready
	// cases, a timer that may fire).
	Steps      int
	Goroutines int
	Choices    int
	// Preemptions counts the preemptive context switches (SCTBench §2.3): steps whose
	// goroutine differs from the previous step's while that one was still enabled.
	Preemptions int
	// Fingerprint identifies the execution's happens-before order: two executions that
	// differ only in the order of independent operations have the same fingerprint (the
	// "distinct partial orders" metric of seed 001).
	Fingerprint uint64
	// Schedule is the list of decisions.
	Schedule []schedule.Step
	// Skipped is set when the test skipped itself (t.Skip).
	Skipped bool
	// Logs are the test's log lines.
	Logs []string
	// Races are the data races the detector found in this execution (Config.Races), each
	// pair of source positions once.
	Races []DataRace
	// RacyPoints are the positions of the accesses that were scheduling points in this
	// execution, with Config.Points racy: Config.RacyPoints and the accesses of the races
	// first seen by earlier executions of the exploration (Explore).
	RacyPoints []Pos
	// DrewData is set when the execution drew math/rand values, and DataSeed is the seed
	// they came from (DataSeeder; 0: the fixed seed).
	DrewData bool
	DataSeed uint64
	// FairSteps is the fairness bound the execution ran with (fair.go; 0: none): the
	// Config's, or the strategy's own (FairBounder).
	FairSteps int
	// SleepDelays and SleepDelayMax are the bounds on delays past timers the execution ran
	// with (Config.Sleeps; 0: none), which its replay needs to offer them again.
	SleepDelays   int
	SleepDelayMax time.Duration
	// MeasuredMemory is set when the execution read the allocator's statistics
	// (runtime.ReadMemStats, testing.AllocsPerRun), which the instrumentation changes.
	MeasuredMemory bool
	// StepBound is set when the execution reached Config.MaxSteps while its goroutines were
	// still changing state: not a bug (background.go).
	StepBound bool
	// Background lists the goroutines that went on after the test returned (background.go),
	// when the execution ended because of them: not a bug.
	Background []GoroutineState
}

// foreignMu serializes noteForeign: goroutines the engine did not start run concurrently with
// the controlled one and with each other.
var foreignMu sync.Mutex

func (r *Result) noteForeign(pos Pos) {
	foreignMu.Lock()
	defer foreignMu.Unlock()
	r.Foreign++
	if len(r.ForeignPos) < 8 {
		for _, p := range r.ForeignPos {
			if p == pos {
				return
			}
		}
		r.ForeignPos = append(r.ForeignPos, pos)
	}
}

// callers returns the calling goroutine's stack, skipping skip frames, without the engine's
// frames and the runtime's.
func callers(skip int) []Frame {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(skip+1, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var out []Frame
	for {
		f, more := frames.Next()
		if !hiddenFrame(f.Function) {
			out = append(out, Frame{Func: f.Function, File: f.File, Line: f.Line})
		}
		if !more {
			break
		}
	}
	return out
}

const enginePkg = "github.com/interleave-dev/interleave/engine."

// harnessPkg prefixes the functions of package harness, which instrumented tests call to run
// and to reach their per-schedule test: machinery too, in a stack.
const harnessPkg = "github.com/interleave-dev/interleave/engine/harness."

// hiddenFrame reports whether a frame belongs to the machinery rather than the program.
func hiddenFrame(fn string) bool {
	switch {
	case strings.HasPrefix(fn, enginePkg), strings.HasPrefix(fn, harnessPkg):
		return true
	case strings.HasPrefix(fn, "runtime.") && !strings.HasPrefix(fn, "runtime.Gosched"):
		return true
	case strings.HasPrefix(fn, "testing."):
		return true
	}
	return false
}

// clone copies a result out of the reused execution.
func (r *Result) clone() *Result {
	c := *r
	c.ForeignPos = append([]Pos(nil), r.ForeignPos...)
	c.Logs = append([]string(nil), r.Logs...)
	c.Races = append([]DataRace(nil), r.Races...)
	c.Background = append([]GoroutineState(nil), r.Background...)
	return &c
}
