package test

import (
	"fmt"
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

// TestPlateauLine: a test stopped at its plateau says so in its line as the other reasons to
// stop are said ("; stopped: …"), with the operation pairs its schedules covered; a test with
// one schedule is described, without pairs; -json gives the pairs as Coverage. A floor that
// a twentieth of the time budget cut is said with the time.
func TestPlateauLine(t *testing.T) {
	for _, tc := range []struct {
		name    string
		e       explore.Event
		want    []string
		notWant string
	}{
		{"plateau", explore.Event{Schedules: 1202, Interleavings: 954, Coverage: 88, Stopped: "plateau", Plateau: 1000, Strategy: "portfolio"},
			[]string{"no bug in 1,202 schedules, 954 distinct interleavings, 88 operation pairs (portfolio, ", "; stopped: no new operation pair or data race in the last 1,000 schedules"}, "\n    "},
		{"plateau, floor in time", explore.Event{Schedules: 123, Interleavings: 99, Coverage: 87, Stopped: "plateau", Plateau: 100, PlateauFloor: 100, TimeBudget: 5, Strategy: "portfolio"},
			[]string{"; stopped: no new operation pair or data race in the last 100 schedules (at least as many as 250ms held: a twentieth of the time budget, not 1,000)"}, "\n    "},
		{"plateau, the whole floor", explore.Event{Schedules: 1202, Interleavings: 954, Coverage: 88, Stopped: "plateau", Plateau: 1000, PlateauFloor: 1000, TimeBudget: 5, Strategy: "portfolio"},
			[]string{"; stopped: no new operation pair or data race in the last 1,000 schedules"}, "twentieth"},
		{"time", explore.Event{Schedules: 206, Interleavings: 143, Coverage: 55, Stopped: "time", TimeBudget: 5, Strategy: "portfolio"},
			[]string{"206 schedules, 143 distinct interleavings, 55 operation pairs (portfolio, ", "; stopped: time budget (5s)"}, "no new"},
		{"one schedule", explore.Event{Schedules: 1, Interleavings: 1, Coverage: 3, Stopped: "plateau", Plateau: 1, OneSchedule: true, Strategy: "portfolio"},
			[]string{"no bug in 1 schedules, 1 distinct interleavings (portfolio, ", ": its only schedule"}, "operation pairs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			o := &output{stdout: &out, stderr: &out}
			e := tc.e
			o.result(testOutcome{Package: "example.com/m", Test: "TestX", Status: report.StatusPass, Result: &e})
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("line %q does not say %q", out.String(), w)
				}
			}
			if strings.Contains(out.String(), tc.notWant) {
				t.Errorf("line %q says %q", out.String(), tc.notWant)
			}
			out.Reset()
			o.json = true
			o.result(testOutcome{Package: "example.com/m", Test: "TestX", Status: report.StatusPass, Result: &e})
			if want := fmt.Sprintf(`"Coverage":%d`, e.Coverage); !strings.Contains(out.String(), want) {
				t.Errorf("-json %s: want %s", out.String(), want)
			}
		})
	}
}
