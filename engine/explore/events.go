package explore

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/store"
)

// Event is one line of the event stream a test binary built by the interleave command writes
// (to the file named by INTERLEAVE_EVENTS): progress while a test is explored, then its
// result. The interleave command turns them into its output and its -json events.
type Event struct {
	Event    string  `json:"Event"` // "progress", "result", or "lockstep"
	Test     string  `json:"Test"`
	Package  string  `json:"Package,omitempty"`
	Strategy string  `json:"Strategy,omitempty"`
	Elapsed  float64 `json:"Elapsed"` // seconds

	Schedules     int `json:"Schedules"`
	Buggy         int `json:"Buggy"`
	Interleavings int `json:"Interleavings"`
	// Coverage is the number of distinct operation pairs the executions covered (which
	// operation followed which on an object), measured by a default budget's plateau
	// (engine.Report.Coverage; result only, 0 when not measured).
	Coverage      int `json:"Coverage,omitempty"`
	MaxGoroutines int `json:"MaxGoroutines,omitempty"`
	MaxSteps      int `json:"MaxSteps,omitempty"`
	// Part is the part of a partitioned exploration ("2/4", see strategy.Part), and Probes
	// the executions that only learnt the schedule tree for it (not among Schedules).
	Part   string `json:"Part,omitempty"`
	Probes int    `json:"Probes,omitempty"`
	// Fingerprints are the distinct interleavings of a part's result, so that the
	// interleave command counts the union of the parts'.
	Fingerprints []uint64 `json:"Fingerprints,omitempty"`
	// RacyPoints are a part's racy scheduling points at its end (points "racy"): a race first
	// seen in one part makes new points there only, and the interleave command combines the
	// parts' claims of exhaustion only when they ended on the same points (result only).
	RacyPoints []string `json:"RacyPoints,omitempty"`
	// FirstBug is the number of the first schedule that found a bug (result only).
	FirstBug int `json:"FirstBug,omitempty"`
	// Points is the scheduling-points mode, DetectionSchedules the schedules of its
	// race-detection phase (mode "racy"), Races the number of data races found, and
	// Findings the findings document they were written to (result only).
	Points             string `json:"Points,omitempty"`
	DetectionSchedules int    `json:"DetectionSchedules,omitempty"`
	Races              int    `json:"Races,omitempty"`
	Findings           string `json:"Findings,omitempty"`
	// PeakMemory is the peak resident memory of the test process so far, in bytes (result
	// only; 0 where the system does not say).
	PeakMemory int64 `json:"PeakMemory,omitempty"`

	// Result only.
	// Stopped says why the exploration stopped (engine.Report.Stopped): "bug", "schedules",
	// "time", "exhausted", "plateau", "canceled", "limitation" (an execution was abandoned:
	// Limitations says why), "skipped", "error".
	Stopped     string              `json:"Stopped,omitempty"`
	Exhausted   string              `json:"Exhausted,omitempty"`
	Error       string              `json:"Error,omitempty"`
	Limitations []engine.Limitation `json:"Limitations,omitempty"`
	Bug         *EventBug           `json:"Bug,omitempty"`
	// Report is the human description of the bug (FormatFailure).
	Report string `json:"Report,omitempty"`
	// Notice is what a person should know about the result that is neither a bug nor an
	// error (a replay of a schedule recorded by other code).
	Notice string `json:"Notice,omitempty"`
	// Cut is the number of executions cut at the step bound (-max-steps) while their
	// goroutines still changed state: their ends, and the test's final checks, never ran.
	Cut int `json:"Cut,omitempty"`
	// Plateau, with Stopped "plateau", is the number of executions in a row that showed
	// nothing new (no new operation pair or data race) when the exploration stopped;
	// OneSchedule is set when no execution had a scheduling choice (one goroutine, no select
	// between ready cases), and DrewData when the executions drew math/rand values.
	Plateau int `json:"Plateau,omitempty"`
	// PlateauFloor, with Stopped "plateau", is the floor of the plateau's rule: 1,000
	// executions, or fewer when a twentieth of the time budget held fewer
	// (engine.Report.PlateauFloor).
	PlateauFloor int  `json:"PlateauFloor,omitempty"`
	OneSchedule  bool `json:"OneSchedule,omitempty"`
	DrewData     bool `json:"DrewData,omitempty"`
	// TimeBudget is the test's time budget in seconds, race-detection phase included (0:
	// none), which Stopped "time" says was spent.
	TimeBudget float64 `json:"TimeBudget,omitempty"`
	// Trace is the schedule of a replay, step by step.
	Trace []schedule.Step `json:"Trace,omitempty"`

	// SavedReplayed is the number of schedules saved for the test (its committed corpus,
	// the results store's) replayed before it was explored, SavedFailing how many of them
	// still fail, SavedDiverged how many the program left because it changed (result only;
	// explained in Notice). The others replayed clean: fixed.
	SavedReplayed int `json:"SavedReplayed,omitempty"`
	SavedFailing  int `json:"SavedFailing,omitempty"`
	SavedDiverged int `json:"SavedDiverged,omitempty"`
	// SavedSchedules are the outcomes of the saved schedules replayed, one each.
	SavedSchedules []SavedOutcome `json:"SavedSchedules,omitempty"`

	// Lockstep is the round of a "lockstep" event: the outcomes of this process's executions
	// in a round of a search run in step with other processes (PERIOD under -p).
	Lockstep *LockstepRound `json:"Lockstep,omitempty"`
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

// events writes the event stream; nil when there is none (EventLog).
type events struct {
	mu   sync.Mutex
	w    io.Writer
	last time.Time
	part string // of a partitioned exploration, written in every event
	// saved are the outcomes of the test's saved schedules, written in its result event.
	saved *savedCounts
}

func (ev *events) write(e *Event) {
	if ev == nil {
		return
	}
	e.Part = ev.part
	if c := ev.saved; c != nil && e.Event == "result" {
		e.SavedReplayed, e.SavedFailing, e.SavedDiverged = c.Replayed, c.Failing, c.Diverged
		e.SavedSchedules = c.Outcomes
		if len(c.Notes) > 0 {
			e.Notice = strings.TrimPrefix(e.Notice+"\n"+strings.Join(c.Notes, "\n"), "\n")
		}
	}
	b, _ := json.Marshal(e)
	ev.mu.Lock()
	ev.w.Write(append(b, '\n'))
	ev.mu.Unlock()
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

func resultEvent(name string, info schedule.Test, rep *Report) *Event {
	e := &Event{
		Event: "result", Test: name, Package: info.Package, Strategy: rep.Strategy,
		Elapsed: rep.Elapsed.Seconds(), Schedules: rep.Schedules, Buggy: rep.Buggy,
		Interleavings: rep.Interleavings, Coverage: rep.Coverage, MaxGoroutines: rep.MaxGoroutines, MaxSteps: rep.MaxSteps,
		Stopped: rep.Stopped, Exhausted: rep.Exhausted, Limitations: rep.Limitations,
		FirstBug: rep.FirstAt, Probes: rep.Probes, Fingerprints: rep.Fingerprints,
		PeakMemory: peakMemory(), Cut: rep.StepBound,
	}
	if rep.Stopped == "plateau" {
		e.Plateau, e.OneSchedule, e.DrewData = rep.PlateauWindow, rep.Deterministic, rep.DrewData
		if !rep.Deterministic {
			e.PlateauFloor = rep.PlateauFloor
		}
	}
	e.Exhausted = QualifyExhausted(e.Exhausted, rep.StepBound, rep.Recovered > 0)
	if rep.Err != nil {
		e.Error = rep.Err.Error()
	}
	var notices []string
	if rep.StepBound > 0 {
		notices = append(notices, fmt.Sprintf("%d schedule(s), the first the %s, reached the step bound without ending while their goroutines still changed state (sends, locks, writes) or read their way through memory: "+
			"a test that runs long or goroutines that take turns forever, not reported as a bug; raise -max-steps if the test is long", rep.StepBound, ordinal(rep.StepBoundAt)))
	}
	if rep.Background != nil {
		notices = append(notices, rep.Background.String())
	}
	notices = append(notices, rep.Notices...)
	e.Notice = strings.Join(notices, "\n")
	return e
}

// QualifyExhausted is what a search's claim of exhaustion covers when cut of its executions
// were cut at the step bound, past which the search did not look, or when the program was
// seen to be nondeterministic (a member of a portfolio found the steps of a prefix did not
// come again): not the whole schedule space, which the claim then no longer says.
func QualifyExhausted(exhausted string, cut int, nondeterministic bool) string {
	if exhausted == "" || cut == 0 && !nondeterministic || strings.Contains(exhausted, notWhole) {
		return exhausted
	}
	s := strings.ReplaceAll(exhausted, " "+engine.WholeScheduleSpace, "")
	s = strings.ReplaceAll(s, " (the part's whole share of the schedule space)", "")
	var why []string
	if cut > 0 {
		why = append(why, fmt.Sprintf("%d execution(s) were cut at the step bound (-max-steps), past which the search did not look", cut))
	}
	if nondeterministic {
		why = append(why, "the program was seen to be nondeterministic, so the search's tree may not be the program's")
	}
	return s + "; " + notWhole + ": " + strings.Join(why, ", and ")
}

// notWhole is how QualifyExhausted says it.
const notWhole = "not the whole schedule space"

func bugEvent(r *engine.Result, path string) *EventBug {
	b := r.Bug
	pos := b.Pos
	// Positions of operations are module-relative (the instrumenter writes them so); a
	// failure's position comes from runtime.Caller, absolute: make it relative too.
	if filepath.IsAbs(pos) {
		if wd, err := os.Getwd(); err == nil {
			if root, _, ok := store.FindModule(wd); ok {
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

// ordinal is n as "1st", "2nd", "3rd", "4th", ...
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
