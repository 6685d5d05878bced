package explore

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// fromEnv applies the INTERLEAVE_* environment variables.
func (o *options) fromEnv() error {
	if v := os.Getenv("INTERLEAVE_STRATEGY"); v != "" {
		name, params, err := strategy.Parse(v)
		if err != nil {
			return fmt.Errorf("INTERLEAVE_STRATEGY: %w", err)
		}
		o.strategyName, o.params, o.strategy = name, params, nil
	}
	if v := os.Getenv("INTERLEAVE_SCHEDULES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("INTERLEAVE_SCHEDULES=%q: want a number of schedules", v)
		}
		o.setSchedules(n)
	}
	// The interleave command says whether its -schedules was given (INTERLEAVE_SCHEDULES is
	// always set): a default budget stops at the plateau.
	if v := os.Getenv("INTERLEAVE_PLATEAU"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("INTERLEAVE_PLATEAU=%q: %w", v, err)
		}
		Plateau(b)(o)
	}
	if v := os.Getenv("INTERLEAVE_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("INTERLEAVE_SEED=%q: want an unsigned integer", v)
		}
		o.seed = n
	}
	// A bug is confirmed in a fresh process by default when the interleave command runs the
	// test (confirm.go); INTERLEAVE_CONFIRM says otherwise.
	o.confirm = os.Getenv("INTERLEAVE_CLI") != ""
	if v := os.Getenv("INTERLEAVE_CONFIRM"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("INTERLEAVE_CONFIRM=%q: %w", v, err)
		}
		o.confirm = b
	}
	if v := os.Getenv("INTERLEAVE_REPLAY"); v != "" {
		o.replay = v
	}
	if v := os.Getenv("INTERLEAVE_REPLAY_STRICT"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("INTERLEAVE_REPLAY_STRICT=%q: %w", v, err)
		}
		o.strict = b
	}
	return nil
}

// envOptions applies the variables only the interleave command sets.
func (o *options) envOptions() error {
	if v := os.Getenv("INTERLEAVE_TIME"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("INTERLEAVE_TIME=%q: %w", v, err)
		}
		Timeout(d)(o)
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
	if v := os.Getenv("INTERLEAVE_STRICT_LEAKS"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("INTERLEAVE_STRICT_LEAKS=%q: %w", v, err)
		}
		o.config.StrictLeaks = b
	}
	if v := os.Getenv("INTERLEAVE_PART"); v != "" {
		p, err := strategy.ParsePart(v)
		if err != nil {
			return fmt.Errorf("INTERLEAVE_PART: %w", err)
		}
		o.part = p
	}
	o.lockstep = os.Getenv("INTERLEAVE_LOCKSTEP")
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

// raceOptions applies INTERLEAVE_POINTS (all, sync, racy), INTERLEAVE_RACES (report, fail,
// off) and INTERLEAVE_RACE_RUNS (the detection phase's schedules).
func (o *options) raceOptions() error {
	if v := os.Getenv("INTERLEAVE_POINTS"); v != "" {
		p, err := engine.ParsePoints(v)
		if err != nil {
			return fmt.Errorf("INTERLEAVE_POINTS: %w", err)
		}
		o.config.Points = p
	}
	switch v := os.Getenv("INTERLEAVE_RACES"); v {
	case "":
	case "report":
		o.config.Races, o.config.RacesFail = true, false
	case "fail":
		o.config.Races, o.config.RacesFail = true, true
	case "off":
		o.config.Races, o.config.RacesFail = false, false
	default:
		return fmt.Errorf("INTERLEAVE_RACES=%q: want report, fail or off", v)
	}
	if v := os.Getenv("INTERLEAVE_SLEEPS"); v != "" {
		m, err := engine.ParseSleepMode(v)
		if err != nil {
			return fmt.Errorf("INTERLEAVE_SLEEPS: %w", err)
		}
		o.config.Sleeps = m
	}
	if v := os.Getenv("INTERLEAVE_RACE_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("INTERLEAVE_RACE_RUNS=%q: want a positive number of schedules", v)
		}
		o.raceRuns = n
	}
	return nil
}
