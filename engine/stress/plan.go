// Package stress is the stress-test driver of Gunal & Patil's stochastic stress framework
// (seed 002) inside an instrumented test binary: the interleave stress command sets
// INTERLEAVE_STRESS to a Plan, and each selected test, instead of being explored, joins the
// driver, which runs the tests' bodies for real, over and over, on all cores — alone (§3.5.1,
// §4.2) or several at once on the same package state (the melting pot, §3.5.2, §4.3) — with
// the runtime randomizations of §3.6 and §4.6, inputs from the randomizer (package random,
// §4.1), and the driver's checks of §3.3: hangs, leaks, panics and failures. It writes what
// happens as JSON events to the file the plan names.
//
// Like every package compiled into test binaries, it uses the standard library only.
package stress

import (
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// EnvPlan is the environment variable that holds the Plan (JSON) of a stress process.
const EnvPlan = "INTERLEAVE_STRESS"

// Plan is what one stress process runs.
type Plan struct {
	// Tests are the tests of the process. With Combine ≤ 1 they take turns, one at a time
	// (individual stress tests); with Combine = N ≥ 2, N of them run at once each round.
	Tests   []string      `json:"tests"`
	Combine int           `json:"combine,omitempty"`
	Budget  time.Duration `json:"budget"`
	// Iterations, when set, bounds the iterations of each test in the process: 1 for a test
	// that cannot run repeatedly in one process ("fresh" in the configuration file).
	Iterations int64  `json:"iterations,omitempty"`
	Seed       uint64 `json:"seed"`
	// Hang, when set, is every test's hang limit; otherwise a test's comes from the
	// configuration file, else it is HangFactor times its average duration, at least
	// HangFloor (FirstHang before the test has a duration).
	Hang time.Duration `json:"hang,omitempty"`
	// Delay is the probability of a delay at an instrumented operation (Cuzz-style), up to
	// DelayMax; Randomizer turns on the goroutine randomizer. Both vary per round from the seed.
	Delay      float64       `json:"delay,omitempty"`
	DelayMax   time.Duration `json:"delayMax,omitempty"`
	Randomizer bool          `json:"randomizer,omitempty"`
	// Events is the file events are appended to.
	Events string `json:"events"`
	// Repro, when set, re-runs one recorded iteration's test with its inputs.
	Repro *Repro `json:"repro,omitempty"`
}

// Repro is what re-running a recorded failure needs.
type Repro struct {
	Test       string `json:"test"`
	Inputs     []Draw `json:"inputs"`
	GOMAXPROCS int    `json:"gomaxprocs"`
}

// Defaults of the hang limit (§3.3 i: "report a hang if the test does not return in a
// predefined amount of time").
const (
	HangFactor = 50
	HangFloor  = 5 * time.Second
	FirstHang  = 60 * time.Second
)

// PlanFromEnv returns the plan in INTERLEAVE_STRESS, or nil when stress mode is off.
func PlanFromEnv() (*Plan, error) {
	v := os.Getenv(EnvPlan)
	if v == "" {
		return nil, nil
	}
	var p Plan
	if err := json.Unmarshal([]byte(v), &p); err != nil {
		return nil, fmt.Errorf("%s: %w", EnvPlan, err)
	}
	if len(p.Tests) == 0 {
		return nil, fmt.Errorf("%s: no tests", EnvPlan)
	}
	return &p, nil
}

// Draw is one value the randomizer drew for an input of a test iteration.
type Draw struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// Event is one line of a stress process's event stream.
type Event struct {
	Action string    `json:"action"` // "progress", "failure" or "done"
	Time   time.Time `json:"time"`
	// Tests are the statistics of every test of the process so far.
	Tests []TestStats `json:"tests,omitempty"`
	// Rounds run, and how often each combination of tests ran together (names joined by
	// "+", combiner only).
	Rounds       int64            `json:"rounds,omitempty"`
	Combinations map[string]int64 `json:"combinations,omitempty"`
	// Spread is the standard deviation of the tests' total times relative to their mean.
	Spread float64 `json:"spread"`
	// Delays and Holds count the runtime randomizations applied.
	Delays  int64    `json:"delays,omitempty"`
	Holds   int64    `json:"holds,omitempty"`
	Failure *Failure `json:"failure,omitempty"`
}

// TestStats are one test's statistics.
type TestStats struct {
	Name       string         `json:"name"`
	Iterations int64          `json:"iterations"`
	Total      time.Duration  `json:"total"`
	Min        time.Duration  `json:"min"` // the shortest iteration (Appendix I's MINTP)
	Failures   map[string]int `json:"failures,omitempty"`
	// Parallel says the test called t.Parallel (it may run beside others).
	Parallel bool `json:"parallel,omitempty"`
}

// Failure kinds.
const (
	KindFail  = "fail"
	KindPanic = "panic"
	KindHang  = "hang"
	KindLeak  = "leak"
	KindRace  = "race"
)

// Failure is one failing iteration, with what re-running it needs.
type Failure struct {
	Kind      string `json:"kind"`
	Test      string `json:"test"`
	Iteration int64  `json:"iteration"`
	// Together are the other tests running at the same time (combiner rounds).
	Together   []string      `json:"together,omitempty"`
	Message    string        `json:"message"`
	Pos        string        `json:"pos,omitempty"`
	Logs       []string      `json:"logs,omitempty"`
	Stacks     string        `json:"stacks,omitempty"`
	Inputs     []Draw        `json:"inputs,omitempty"`
	GOMAXPROCS int           `json:"gomaxprocs"`
	Elapsed    time.Duration `json:"elapsed"` // since the process started
}
