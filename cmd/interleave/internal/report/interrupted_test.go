package report

import (
	"strings"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine/explore"
)

// TestInterruptedReports: the reports of a run a signal interrupted are not those of a pass —
// its stopped and unstarted tests are JUnit errors of type interrupted, the suite says the
// signal, and the SARIF invocation is unsuccessful with a notification — while a bug found
// before the signal stays a failure.
func TestInterruptedReports(t *testing.T) {
	cfg := &Config{Strategy: "random", Seed: 1, Points: "racy", Races: "report", Interrupted: "terminated"}
	outcomes := []Outcome{
		{Package: "p", Test: "TestStopped", Interrupted: true, Err: "interrupted (signal: terminated) after 5 schedule(s) without a bug: not explored to the end",
			Result: &explore.Event{Schedules: 5, Interleavings: 2, Strategy: "random", Stopped: "canceled"}},
		{Package: "p", Test: "TestNotStarted", Interrupted: true, Err: "not explored: the run was interrupted (signal: terminated) before it started"},
		{Package: "p", Test: "TestBug", Result: &explore.Event{Schedules: 3, Strategy: "random", Stopped: "bug",
			Bug: &explore.EventBug{Kind: "fail", Message: "boom", Position: "p.go:1:1", Schedule: "/s.json"}}},
	}
	j := JUnit(cfg, outcomes, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	if j.Errors != 2 || j.Failures != 1 || j.Tests != 3 {
		t.Errorf("JUnit: %d errors, %d failures of %d tests; want 2 and 1 of 3", j.Errors, j.Failures, j.Tests)
	}
	s := j.Suites[0]
	if p := s.Properties[len(s.Properties)-1]; p.Name != "interrupted" || p.Value != "signal: terminated" {
		t.Errorf("the suite's last property %+v, want interrupted", p)
	}
	for _, c := range s.Cases[:2] {
		if c.Error == nil || c.Error.Type != "interrupted" {
			t.Errorf("%s: error %+v, want one of type interrupted", c.Name, c.Error)
		}
	}
	if !strings.Contains(s.Cases[0].SystemOut, "no bug in 5 schedules before the run was interrupted") {
		t.Errorf("TestStopped's system-out %q", s.Cases[0].SystemOut)
	}
	l := SARIF(cfg, outcomes, "/m", []string{"interleave", "test"}, true)
	inv := l.Runs[0].Invocations[0]
	if inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 1 || inv.ToolExecutionNotifications[0].Level != "error" ||
		!strings.Contains(inv.ToolExecutionNotifications[0].Message.Text, "interrupted (signal: terminated): 2 test(s) not explored to the end") {
		t.Errorf("SARIF invocation %+v: want an unsuccessful execution with a notification", inv)
	}
	if len(l.Runs[0].Results) != 1 || l.Runs[0].Results[0].RuleID != "fail" {
		t.Errorf("SARIF results %+v: want the bug found before the signal", l.Runs[0].Results)
	}
}
