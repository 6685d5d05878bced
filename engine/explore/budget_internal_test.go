package explore

import (
	"testing"
	"time"
)

// TestBudgetOptions: without a budget a test has the default time budget and stops at its
// plateau; a budget of schedules given (Schedules, INTERLEAVE_SCHEDULES) runs exactly that
// many, with no time budget unless one is given too (Timeout, INTERLEAVE_TIME).
func TestBudgetOptions(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      []Option
		env       map[string]string
		schedules int
		time      time.Duration
		plateau   bool
	}{
		{"default", nil, nil, DefaultSchedules, DefaultTime, true},
		{"Schedules", []Option{Schedules(50)}, nil, 50, 0, false},
		{"INTERLEAVE_SCHEDULES", nil, map[string]string{"INTERLEAVE_SCHEDULES": "50"}, 50, 0, false},
		{"Schedules and Timeout", []Option{Timeout(time.Minute), Schedules(50)}, nil, 50, time.Minute, false},
		{"INTERLEAVE_SCHEDULES and INTERLEAVE_TIME", nil, map[string]string{"INTERLEAVE_SCHEDULES": "50", "INTERLEAVE_TIME": "2s"}, 50, 2 * time.Second, false},
		{"Timeout alone", []Option{Timeout(time.Minute)}, nil, DefaultSchedules, time.Minute, true},
		{"no time bound", []Option{Timeout(0)}, nil, DefaultSchedules, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"INTERLEAVE_SCHEDULES", "INTERLEAVE_TIME", "INTERLEAVE_PLATEAU"} {
				t.Setenv(k, tc.env[k])
			}
			o := defaultOptions()
			for _, opt := range tc.opts {
				opt(&o)
			}
			if err := o.fromEnv(); err != nil {
				t.Fatal(err)
			}
			if err := o.envOptions(); err != nil {
				t.Fatal(err)
			}
			if o.config.Schedules != tc.schedules || o.config.Time != tc.time || (o.config.Plateau > 0) != tc.plateau {
				t.Errorf("schedules %d, time %v, plateau %d: want %d, %v, plateau %v", o.config.Schedules, o.config.Time, o.config.Plateau, tc.schedules, tc.time, tc.plateau)
			}
		})
	}
}
