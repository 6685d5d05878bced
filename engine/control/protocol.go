package control

import (
	"fmt"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/store"
)

// Command is a command of the control protocol, from the adapter to the test process.
type Command struct {
	Cmd string `json:"cmd"`

	// explore
	Strategy  string            `json:"strategy,omitempty"`
	Params    map[string]string `json:"params,omitempty"`
	Seed      uint64            `json:"seed,omitempty"`
	Schedules int               `json:"schedules,omitempty"`
	Time      time.Duration     `json:"time,omitempty"`

	// run: the decisions to follow, and where to pause. SameSteps follows the Steps of the
	// previous run again (a long schedule is sent once).
	Steps     []schedule.Step `json:"steps,omitempty"`
	SameSteps bool            `json:"sameSteps,omitempty"`
	// DataSeed is the seed of the execution's math/rand values, as the schedule file records
	// it (0: the fixed seed); SameSteps keeps the previous run's.
	DataSeed uint64 `json:"dataSeed,omitempty"`
	// Stop pauses the execution when Stop steps have been executed (at the decision of step
	// Stop+1); -1 runs as "continue" does.
	Stop int `json:"stop"`
	// ExceptionAt is the number of steps executed when the schedule's bug is one step away
	// (bug step - 1): continuing stops there. -1: none.
	ExceptionAt int `json:"exceptionAt"`
	// Breakpoints are "file:line" positions, file as in operation positions (relative to the
	// module root).
	Breakpoints []string `json:"breakpoints,omitempty"`
	// Save is the directory where the schedule of an execution that left Steps is saved when
	// it ends ("" : the module's .interleave/schedules).
	Save string `json:"save,omitempty"`

	// Points and RacyPoints are the scheduling-points mode ("all", "sync", "racy"; empty:
	// all) and the racy positions, as the schedule file records them; Races is "report" (the
	// default: the race detector runs, races are findings), "fail" (the first race is a bug)
	// or "off".
	Points     string   `json:"points,omitempty"`
	RacyPoints []string `json:"racyPoints,omitempty"`
	Races      string   `json:"races,omitempty"`
	// Then is the strategy ("name" or "name:key=value,...", seeded with Seed) that picks the
	// steps once an execution has left Steps; empty: no preemption (the goroutine that ran
	// last goes on while it is enabled, else the first enabled one).
	Then string `json:"then,omitempty"`
	// MaxSteps is the livelock bound (0: the engine's default, or for a run twice the
	// steps it follows).
	MaxSteps int `json:"maxSteps,omitempty"`
	// StrictLeaks makes every goroutine left after the test a leak (engine.Config.StrictLeaks),
	// as interleave test's -strict-leaks does.
	StrictLeaks bool `json:"strictLeaks,omitempty"`

	// step: the goroutine to run; -1 for the next step of the schedule.
	G int `json:"g"`
}

// config is the engine configuration of an exploration or an execution of the session.
func (c *Command) config(name string) (engine.Config, error) {
	cfg := engine.Config{Name: name, MaxSteps: c.MaxSteps, StrictLeaks: c.StrictLeaks}
	if root, err := store.WorkingModule(); err == nil {
		cfg.Root = root // bug positions relative to the module, as operations' are
	}
	if c.Points != "" {
		p, err := engine.ParsePoints(c.Points)
		if err != nil {
			return cfg, err
		}
		cfg.Points, cfg.RacyPoints = p, c.RacyPoints
	}
	switch c.Races {
	case "", "report":
		cfg.Races = true
	case "fail":
		cfg.Races, cfg.RacesFail = true, true
	case "off":
	default:
		return cfg, fmt.Errorf("races %q: want report, fail or off", c.Races)
	}
	return cfg, nil
}

// Reply is a message of the control protocol, from the test process to the adapter.
type Reply struct {
	// Kind is "hello", "progress", "explored", "paused", "ended" or "error".
	Kind     string         `json:"kind"`
	Test     *schedule.Test `json:"test,omitempty"`
	Progress *Progress      `json:"progress,omitempty"`
	Explored *Explored      `json:"explored,omitempty"`
	State    *State         `json:"state,omitempty"`
	Error    string         `json:"error,omitempty"`
}

// Progress is the progress of an exploration.
type Progress struct {
	Schedules     int     `json:"schedules"`
	Interleavings int     `json:"interleavings"`
	Elapsed       float64 `json:"elapsed"` // seconds
}

// Explored is the outcome of an exploration.
type Explored struct {
	Progress
	Stopped   string `json:"stopped"`
	Exhausted string `json:"exhausted,omitempty"`
	Error     string `json:"error,omitempty"`
	Bug       *Bug   `json:"bug,omitempty"`
	// File is the schedule of the first bug, saved at File.Path.
	File     *schedule.File `json:"file,omitempty"`
	Strategy string         `json:"strategy,omitempty"`
	// Races are the data races found, described.
	Races []string `json:"races,omitempty"`
	// Findings is the findings document written to the results store; Notice says why none
	// was.
	Findings string `json:"findings,omitempty"`
	Notice   string `json:"notice,omitempty"`
}

// Bug is a bug found by an execution.
type Bug struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Pos     string `json:"pos"`
	Step    int    `json:"step"`
	G       int    `json:"g"`
	// Logs are the test's log lines of the execution (t.Log, t.Error, ...).
	Logs []string `json:"logs,omitempty"`
}

// State is the state of a paused (or ended) execution.
type State struct {
	// Step is the number of steps executed.
	Step int `json:"step"`
	// Ended is set when the execution is over; Bug is its bug, if any.
	Ended bool `json:"ended,omitempty"`
	Bug   *Bug `json:"bug,omitempty"`
	// Reason says why the execution paused: "step", "breakpoint", "exception", "pause",
	// "end".
	Reason string `json:"reason"`
	// Next is the goroutine that runs the next step when the execution goes on by the
	// schedule (or by the default policy once it left it).
	Next int `json:"next"`
	// Following is true while the execution follows the steps it was started with.
	Following bool `json:"following"`
	// Diverged says why the execution left them, if it did by itself (nondeterminism).
	Diverged string `json:"diverged,omitempty"`
	// TraceFrom and Trace are the decisions made since the execution's previous reply,
	// starting at index TraceFrom of its schedule.
	TraceFrom int             `json:"traceFrom"`
	Trace     []schedule.Step `json:"trace,omitempty"`
	// Info says more of each decision of Trace (Info[i] is Trace[i]'s), for a timeline of the
	// execution: what the schedule file does not record.
	Info       []StepInfo  `json:"info,omitempty"`
	Goroutines []Goroutine `json:"goroutines"`
	// Saved is the schedule file an execution that left its schedule was saved to (at its
	// end).
	Saved string `json:"saved,omitempty"`
	// Err is the error that ended the execution (a replay divergence, a limitation).
	Err string `json:"err,omitempty"`
	// Races are the data races the execution showed (at its end), described.
	Races []string `json:"races,omitempty"`
}

// StepInfo is what a timeline needs of a decision beyond the schedule's step.
type StepInfo struct {
	// Obj numbers the object the operation acts on (a mutex, a channel, a variable), 1 for
	// the first the execution met, 2 for the next...; 0 for none. Numbers, not addresses: the
	// same decisions give the same numbers in every execution.
	Obj int `json:"obj,omitempty"`
	// Enabled are the goroutines that could run at the decision (for a run step), in
	// increasing order: a switch away from a goroutine still enabled is a preemption, and a
	// goroutine not enabled that runs later was blocked.
	Enabled []int `json:"enabled,omitempty"`
}

// Goroutine describes one goroutine of a paused execution.
type Goroutine struct {
	ID      int    `json:"id"`
	Parent  int    `json:"parent"`
	Created string `json:"created,omitempty"`
	Status  string `json:"status"`
	Op      string `json:"op,omitempty"`
	Pos     string `json:"pos,omitempty"`
	// Goid is the runtime's goroutine id (0 when unknown).
	Goid   int64          `json:"goid,omitempty"`
	Frames []engine.Frame `json:"frames,omitempty"`
	Holds  []string       `json:"holds,omitempty"`
	Waits  []Chan         `json:"waits,omitempty"`
	// Clock is the goroutine's vector clock (element i: how much of Gi happens before its
	// next step), when the race detector runs.
	Clock []uint32 `json:"clock,omitempty"`
}

// Chan is a channel a goroutine waits on.
type Chan struct {
	Addr      string   `json:"addr"`
	Send      bool     `json:"send"`
	Cap       int      `json:"cap"`
	Len       int      `json:"len"`
	Closed    bool     `json:"closed,omitempty"`
	Values    []string `json:"values,omitempty"`
	Senders   []int    `json:"senders,omitempty"`
	Receivers []int    `json:"receivers,omitempty"`
}
