package test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine/explore"
)

// TestTestBudget: without -schedules or -time a test's budget is the default, cut to its share
// of what is left of the run's -total-time (never below minTestTime); -schedules N alone
// gives no time budget (exactly N schedules, no plateau), -time D gives D whatever is left.
func TestTestBudget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		elapsed time.Duration
		left    int
		want    time.Duration
		plateau bool
	}{
		{"default, run's budget ample", nil, 0, 10, explore.DefaultTime, true},
		{"default, shared", nil, 0, 100, DefaultTotalTime / 50, true},
		{"default, run's budget spent", nil, DefaultTotalTime, 10, minTestTime, true},
		{"-total-time 0", []string{"-total-time", "0"}, time.Hour, 1000, explore.DefaultTime, true},
		{"-schedules N", []string{"-schedules", "100"}, 0, 1, 0, false},
		{"-schedules N, run's budget spent", []string{"-schedules", "100"}, time.Hour, 1000, 0, false},
		{"-time D", []string{"-time", "1m"}, time.Hour, 1000, time.Minute, true},
		{"-schedules N -time D", []string{"-schedules", "100", "-time", "1m"}, 0, 1, time.Minute, false},
		{"-time 0", []string{"-time", "0"}, 0, 1, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parseTestFlags(append(slices.Clone(tc.args), "-p", "2"))
			if err != nil {
				t.Fatal(err)
			}
			got := f.testBudget(tc.elapsed, tc.left, f.workers)
			if got != tc.want {
				t.Errorf("budget %v, want %v", got, tc.want)
			}
			env := strings.Join(f.exploreEnv(t.TempDir(), got), " ")
			wantTime := "INTERLEAVE_TIME=" + tc.want.String()
			if tc.want == 0 {
				if strings.Contains(env, "INTERLEAVE_TIME=") {
					t.Errorf("environment %s: want no INTERLEAVE_TIME", env)
				}
			} else if !strings.Contains(env, wantTime) {
				t.Errorf("environment %s: want %s", env, wantTime)
			}
			if !strings.Contains(env, "INTERLEAVE_PLATEAU="+map[bool]string{true: "true", false: "false"}[tc.plateau]) {
				t.Errorf("environment %s: want plateau %v", env, tc.plateau)
			}
		})
	}
}
