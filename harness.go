package interleave

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/minimize"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// TB is the interface of the per-schedule test handle that the instrumenter puts where a
// test's code says testing.TB.
type TB interface {
	ArtifactDir() string
	Attr(key, value string)
	Chdir(dir string)
	Cleanup(f func())
	Context() context.Context
	Error(args ...any)
	Errorf(format string, args ...any)
	Fail()
	FailNow()
	Failed() bool
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Helper()
	Log(args ...any)
	Logf(format string, args ...any)
	Name() string
	Output() io.Writer
	Setenv(key, value string)
	Skip(args ...any)
	SkipNow()
	Skipf(format string, args ...any)
	Skipped() bool
	TempDir() string
}

var _ TB = (*T)(nil)

// Event is one line of the event stream a test binary built by the interleave command writes
// (to the file named by INTERLEAVE_EVENTS): progress while a test is explored, then its
// result. The interleave command turns them into its output and its -json events.
type Event struct {
	Event    string  `json:"Event"` // "progress" or "result"
	Test     string  `json:"Test"`
	Package  string  `json:"Package,omitempty"`
	Strategy string  `json:"Strategy,omitempty"`
	Elapsed  float64 `json:"Elapsed"` // seconds

	Schedules     int `json:"Schedules"`
	Buggy         int `json:"Buggy"`
	Interleavings int `json:"Interleavings"`
	MaxGoroutines int `json:"MaxGoroutines,omitempty"`
	MaxSteps      int `json:"MaxSteps,omitempty"`
	// FirstBug is the number of the first schedule that found a bug (result only).
	FirstBug int `json:"FirstBug,omitempty"`
	// Points is the scheduling-points mode, DetectionSchedules the schedules of its
	// race-detection phase (mode "racy"), Races the number of data races found, and
	// Findings the findings document they were written to (result only).
	Points             string `json:"Points,omitempty"`
	DetectionSchedules int    `json:"DetectionSchedules,omitempty"`
	Races              int    `json:"Races,omitempty"`
	Findings           string `json:"Findings,omitempty"`

	// Result only.
	Stopped     string              `json:"Stopped,omitempty"`
	Exhausted   string              `json:"Exhausted,omitempty"`
	Error       string              `json:"Error,omitempty"`
	Limitations []engine.Limitation `json:"Limitations,omitempty"`
	Bug         *EventBug           `json:"Bug,omitempty"`
	// Report is the human description of the bug (FormatFailure).
	Report string `json:"Report,omitempty"`
	// Trace is the schedule of a replay, step by step.
	Trace []schedule.Step `json:"Trace,omitempty"`
}

// EventBug is the bug of a result event.
type EventBug struct {
	Kind     string `json:"Kind"`
	Message  string `json:"Message"`
	Position string `json:"Position"`
	Schedule string `json:"Schedule,omitempty"`
	// Preemptions of the saved schedule, and of the schedule as found when minimization
	// made it simpler.
	Preemptions      int `json:"Preemptions"`
	FoundPreemptions int `json:"FoundPreemptions,omitempty"`
	Step             int `json:"Step"`
}

// events writes the event stream; nil when INTERLEAVE_EVENTS is not set.
type events struct {
	mu   sync.Mutex
	f    *os.File
	last time.Time
}

func openEvents() *events {
	p := os.Getenv("INTERLEAVE_EVENTS")
	if p == "" {
		return nil
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintf(os.Stderr, "interleave: events: %v\n", err)
		return nil
	}
	return &events{f: f}
}

func (ev *events) write(e *Event) {
	if ev == nil {
		return
	}
	b, _ := json.Marshal(e)
	ev.mu.Lock()
	ev.f.Write(append(b, '\n'))
	ev.mu.Unlock()
}

// RunTest is what the instrumenter makes of a TestXxx function: it explores body (the test's
// original body, rewritten) as Explore does, configured by the INTERLEAVE_* environment the
// interleave command sets, streams progress and the result as events, and minimizes the
// schedule of a bug before saving it (INTERLEAVE_MINIMIZE, a duration; 0 turns it off).
func RunTest(t *testing.T, body func(*T)) {
	t.Helper()
	if addr := os.Getenv("INTERLEAVE_DEBUG"); addr != "" {
		debugTest(t, body, addr)
		return
	}
	ev := openEvents()
	if ev != nil {
		defer ev.f.Close()
	}
	o := defaultOptions()
	o.events, o.minimize = ev, 5*time.Second
	explore(t, body, o)
}

// envOptions applies the variables only the interleave command sets.
func (o *options) envOptions() error {
	if v := os.Getenv("INTERLEAVE_TIME"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("INTERLEAVE_TIME=%q: %w", v, err)
		}
		o.config.Time = d
	}
	if v := os.Getenv("INTERLEAVE_KEEP_GOING"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("INTERLEAVE_KEEP_GOING=%q: %w", v, err)
		}
		o.config.KeepGoing = b
	}
	if v := os.Getenv("INTERLEAVE_MAX_STEPS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("INTERLEAVE_MAX_STEPS=%q: %w", v, err)
		}
		o.config.MaxSteps = n
	}
	if v := os.Getenv("INTERLEAVE_FAIR_STEPS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("INTERLEAVE_FAIR_STEPS=%q: %w", v, err)
		}
		o.config.FairSteps = n
	}
	if v := os.Getenv("INTERLEAVE_SCHEDULE_DIR"); v != "" {
		o.dir = v
	}
	if v := os.Getenv("INTERLEAVE_MINIMIZE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("INTERLEAVE_MINIMIZE=%q: %w", v, err)
		}
		o.minimize = d
	}
	return nil
}

// progress is the OnExecution hook that streams progress events, at most four a second.
func (o *options) progress(name string, start time.Time) func(int, *engine.Result) {
	seen := make(map[uint64]struct{}) // the distinct interleavings so far
	return func(n int, r *engine.Result) {
		if o.events == nil {
			return
		}
		seen[r.Fingerprint] = struct{}{}
		if n&63 != 0 {
			return
		}
		now := time.Now()
		if now.Sub(o.events.last) < 250*time.Millisecond {
			return
		}
		o.events.last = now
		o.events.write(&Event{Event: "progress", Test: name, Schedules: n, Interleavings: len(seen), Elapsed: now.Sub(start).Seconds(), Strategy: o.strategyName})
	}
}

// minimizeSchedule shrinks the schedule at path to fewer preemptions, within o.minimize, and
// replaces the file with the result; the schedule as found is kept beside it. It returns the
// preemptions before and after.
func minimizeSchedule(body func(*T), f *schedule.File, path string, budget time.Duration) (before, after int, err error) {
	res, err := minimize.Minimize(body, f, minimize.Options{Time: budget})
	if err != nil {
		return 0, 0, err
	}
	if res.After >= res.Before {
		return res.Before, res.Before, nil
	}
	orig := strings.TrimSuffix(path, ".json") + ".found.json"
	if err := os.Rename(path, orig); err != nil {
		return 0, 0, err
	}
	if err := res.File.Save(path); err != nil {
		return 0, 0, err
	}
	return res.Before, res.After, nil
}

func resultEvent(name string, info schedule.Test, rep *Report) *Event {
	e := &Event{
		Event: "result", Test: name, Package: info.Package, Strategy: rep.Strategy,
		Elapsed: rep.Elapsed.Seconds(), Schedules: rep.Schedules, Buggy: rep.Buggy,
		Interleavings: rep.Interleavings, MaxGoroutines: rep.MaxGoroutines, MaxSteps: rep.MaxSteps,
		Stopped: rep.Stopped, Exhausted: rep.Exhausted, Limitations: rep.Limitations,
		FirstBug: rep.FirstAt,
	}
	if rep.Err != nil {
		e.Error = rep.Err.Error()
	}
	return e
}

func bugEvent(r *engine.Result, path string) *EventBug {
	b := r.Bug
	pos := b.Pos
	// Positions of operations are module-relative (the instrumenter writes them so); a
	// failure's position comes from runtime.Caller, absolute: make it relative too.
	if filepath.IsAbs(pos) {
		if wd, err := os.Getwd(); err == nil {
			if root, _, ok := FindModule(wd); ok {
				if rel, err := filepath.Rel(root, pos); err == nil && !strings.HasPrefix(rel, "..") {
					pos = filepath.ToSlash(rel)
				}
			}
		}
	}
	if abs, err := filepath.Abs(path); err == nil && path != "" {
		path = abs
	}
	return &EventBug{Kind: string(b.Kind), Message: b.Message, Position: pos, Schedule: path, Preemptions: r.Preemptions, Step: b.Step}
}

// minimizeFile minimizes the schedule file at path (interleave minimize) into out.
func minimizeFile(t testing.TB, body func(*T), o options, info schedule.Test, path, out string) {
	t.Helper()
	e := resultEvent(t.Name(), info, &Report{Strategy: "minimize"})
	f, err := schedule.Load(path)
	if err == nil {
		err = f.Check(info)
	}
	var res *minimize.Result
	if err == nil {
		res, err = minimize.Minimize(body, f, minimize.Options{Time: o.minimize})
	}
	if err == nil {
		err = res.File.Save(out)
	}
	if err != nil {
		e.Stopped, e.Error = "error", err.Error()
		o.events.write(e)
		t.Fatalf("interleave: minimize %s: %v", path, err)
	}
	e.Bug = &EventBug{Kind: string(res.Bug.Kind), Message: res.Bug.Message, Position: res.Bug.Pos, Schedule: out,
		Preemptions: res.After, FoundPreemptions: res.Before, Step: res.Bug.Step}
	e.Schedules = res.Executions
	o.events.write(e)
}
