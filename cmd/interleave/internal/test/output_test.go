package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/report"
	"github.com/interleave-dev/interleave/engine/explore"
)

// TestBugRun: the FAIL line gives the schedules run, and no "after", which is the bug's
// report's: it said "after 4 schedule(s)" under a report that said "after 2 schedule(s)".
func TestBugRun(t *testing.T) {
	for _, tc := range []struct {
		schedules int
		want      string
	}{
		{4, "deadlock bug, 4 schedule(s) run"},
		{12000, "deadlock bug, 12,000 schedule(s) run"},
	} {
		if got := bugRun("deadlock", tc.schedules); got != tc.want || strings.Contains(got, "after") {
			t.Errorf("bugRun(%d) = %q, want %q", tc.schedules, got, tc.want)
		}
	}
}

// TestDropDuplicateSchedules: of the schedules two workers saved for one bug (each with its
// copy as found), only the reported one stays; a different bug's, and a saved schedule a
// worker replayed to the same bug, stay too. One -p 2 run left four rows in the Schedules
// view for one bug.
func TestDropDuplicateSchedules(t *testing.T) {
	dir := t.TempDir()
	file := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	won, wonFound := file("TestX-deadlock-1.json"), file("TestX-deadlock-1.found.json")
	lost, lostFound := file("TestX-deadlock-2.json"), file("TestX-deadlock-2.found.json")
	other := file("TestX-panic-3.json")
	kept := file("TestX-deadlock-kept.json")
	bug := func(kind, pos, path string) *explore.EventBug {
		return &explore.EventBug{Kind: kind, Position: pos, Schedule: path}
	}
	res := &explore.Event{Bug: bug("deadlock", "a.go:8:2", won)}
	results := []*partResult{
		{Part: report.Part{Event: &explore.Event{Bug: res.Bug}}},
		{Part: report.Part{Event: &explore.Event{Bug: bug("deadlock", "a.go:8:2", lost)}}},
		{Part: report.Part{Event: &explore.Event{Bug: bug("panic", "a.go:9:2", other)}}},
		{Part: report.Part{Event: &explore.Event{Bug: bug("deadlock", "a.go:8:2", kept), SavedFailing: 1}}},
		{Part: report.Part{Event: nil}},
	}
	dropped := dropDuplicateSchedules(res, results)
	for p, want := range map[string]bool{won: true, wonFound: true, lost: false, lostFound: false, other: true, kept: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
	if len(dropped) != 1 || !dropped[lost] {
		t.Errorf("dropped %v, want %s", dropped, lost)
	}
	if res.Notice != "" {
		t.Errorf("notice %q", res.Notice)
	}
}
