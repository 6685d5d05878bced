package dap

// The launch request's arguments: what a launch.json configuration of type "interleave" may say,
// decoded and checked before anything is built.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/runopts"
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
		if slices.Contains(sessionKeys, k) || vscodeKeys[k] || strings.HasPrefix(k, "__") {
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
