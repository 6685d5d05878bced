package dap

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestParseLaunchArgs: the exploration's options of a launch configuration reach the
// session: the strategy with its parameters (as "name:key=value" or as attributes), build
// tags as a -tags build flag, the livelock bound, -strict-leaks.
func TestParseLaunchArgs(t *testing.T) {
	dir := t.TempDir()
	raw, _ := json.Marshal(map[string]any{"type": "interleave", "request": "launch", "name": "x", "program": dir,
		"strategy": "pct:d=2", "k": 30, "seed": 5, "time": "10s", "points": "sync", "races": "fail", "max-steps": 500,
		"strict-leaks": true, "tags": []string{"integration"}, "buildFlags": []string{"-race"}, "__sessionId": "abc"})
	a, err := parseLaunchArgs(raw, false)
	if err != nil {
		t.Fatal(err)
	}
	if a.Strategy != "pct" || !reflect.DeepEqual(a.params, map[string]string{"d": "2", "k": "30"}) || a.Seed != 5 || a.time.String() != "10s" ||
		a.Schedules != 0 || a.Points != "sync" || a.Races != "fail" || a.maxSteps != 500 || !a.strictLeaks || !reflect.DeepEqual(a.BuildFlags, []string{"-race", "-tags=integration"}) {
		t.Errorf("launch arguments %+v", a)
	}
}
