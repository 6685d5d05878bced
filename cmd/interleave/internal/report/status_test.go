package report

import (
	"strings"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// Each test's status says what really happened: executions cut at the step bound are not a
// pass, an abandoned exploration is not an error, and both carry why.
func TestStatusOf(t *testing.T) {
	watchdog := []engine.Limitation{{Kind: "watchdog", Message: "G0 did not reach a scheduling point for 1s: module m is not instrumented"}}
	for _, tc := range []struct {
		name   string
		o      Outcome
		status string
		reason string
	}{
		{"pass", Outcome{Result: &explore.Event{Schedules: 10, Stopped: "schedules"}}, StatusPass, ""},
		{"plateau", Outcome{Result: &explore.Event{Schedules: 1, Stopped: "plateau", OneSchedule: true}}, StatusPass, ""},
		{"bug", Outcome{Result: &explore.Event{Schedules: 3, Cut: 2, Bug: &explore.EventBug{Kind: "fail"}}}, StatusBug, ""},
		{"cut", Outcome{Result: &explore.Event{Schedules: 40, Cut: 10, MaxSteps: 300, Stopped: "schedules"}}, StatusCut, "10 of 40 schedule(s) (25%) cut at the step bound of 300 steps"},
		{"cut, a few", Outcome{Result: &explore.Event{Schedules: 10000, Cut: 3, Stopped: "schedules"}}, StatusCut, "3 of 10,000 schedule(s) (<1%) cut"},
		{"abandoned", Outcome{Result: &explore.Event{Schedules: 2, Stopped: "limitation", Limitations: watchdog}}, StatusAbandoned, "abandoned after 2 schedule(s), blocked outside the engine: G0 did not reach"},
		{"skipped", Outcome{Result: &explore.Event{Stopped: "skipped"}}, StatusSkipped, "the test skipped itself"},
		{"error", Outcome{Err: "the test binary ended without a result"}, StatusError, "the test binary ended"},
		{"interrupted", Outcome{Err: "interrupted (signal: terminated)", Interrupted: true, Result: &explore.Event{Cut: 1}}, StatusInterrupted, "interrupted"},
	} {
		status, reason := StatusOf(tc.o)
		if status != tc.status || !strings.Contains(reason, tc.reason) || tc.reason == "" && reason != "" {
			t.Errorf("%s: %q, %q; want %q, %q", tc.name, status, reason, tc.status, tc.reason)
		}
	}
}

// A cut or abandoned test is a skipped JUnit case with why, and a warning of the SARIF
// invocation; the run stays successful.
func TestNotExploredInReports(t *testing.T) {
	cut := Outcome{Package: "p", Test: "TestLong", Result: &explore.Event{Schedules: 4, Cut: 4, MaxSteps: 300}}
	abandoned := Outcome{Package: "p", Test: "TestBlocked", Result: &explore.Event{Schedules: 1, Stopped: "limitation",
		Limitations: []engine.Limitation{{Kind: "watchdog", Message: "blocked in a system call"}}}}
	fine := Outcome{Package: "p", Test: "TestFine", Result: &explore.Event{Schedules: 1, Stopped: "plateau", OneSchedule: true}}
	outcomes := []Outcome{cut, abandoned, fine}
	for i := range outcomes {
		outcomes[i].Status, outcomes[i].Reason = StatusOf(outcomes[i])
	}
	cfg := &Config{Strategy: "portfolio", Schedules: 10000}
	j := JUnit(cfg, outcomes, time.Now())
	if j.Skipped != 2 || j.Failures != 0 || j.Errors != 0 {
		t.Fatalf("JUnit: %d skipped, %d failures, %d errors; want 2 skipped", j.Skipped, j.Failures, j.Errors)
	}
	cases := j.Suites[0].Cases
	if !strings.HasPrefix(cases[0].Skipped.Message, "cut: 4 of 4 schedule(s) (100%)") || !strings.HasPrefix(cases[1].Skipped.Message, "abandoned: abandoned after 1 schedule(s)") ||
		cases[2].Skipped != nil || !strings.Contains(cases[2].SystemOut, "its only schedule") {
		t.Errorf("JUnit cases %+v", cases)
	}
	s := SARIF(cfg, outcomes, "", []string{"interleave", "test"}, true)
	inv := s.Runs[0].Invocations[0]
	if !inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 2 || inv.ToolExecutionNotifications[0].Level != "warning" ||
		!strings.Contains(inv.ToolExecutionNotifications[1].Message.Text, "TestBlocked (p) abandoned: ") {
		t.Errorf("SARIF invocation %+v", inv)
	}
	if n, a, line := NotExplored(outcomes); n != 1 || a != 1 || !strings.Contains(line, "1 test(s) cut at the step bound, 1 abandoned") {
		t.Errorf("NotExplored: %d, %d, %q", n, a, line)
	}
}

// The workers of a test add up their cut executions, an abandoned part makes the test
// abandoned, and the parts' claims of exhaustion do not say the whole schedule space when
// executions were cut.
func TestCombinePartsCutAndAbandoned(t *testing.T) {
	part := func(i int, e *explore.Event) *Part {
		return &Part{Part: strategy.Part{}.Within(i, 2), Event: e}
	}
	c, err := CombineParts([]*Part{
		part(0, &explore.Event{Schedules: 5, Cut: 2, Stopped: "exhausted", Exhausted: "all 5 schedules of part 1/2 with ≤ 1 delays explored (the part's whole share of the schedule space)"}),
		part(1, &explore.Event{Schedules: 6, Cut: 1, Stopped: "exhausted", Exhausted: "all 6 schedules of part 2/2 with ≤ 1 delays explored (the part's whole share of the schedule space)"}),
	}, false)
	if err != nil || c.Cut != 3 || strings.Contains(c.Exhausted, "(the whole schedule space") || !strings.Contains(c.Exhausted, "not the whole schedule space") {
		t.Errorf("cut parts: %v, cut %d, exhausted %q", err, c.Cut, c.Exhausted)
	}
	c, err = CombineParts([]*Part{
		part(0, &explore.Event{Schedules: 5, Stopped: "schedules"}),
		part(1, &explore.Event{Schedules: 1, Stopped: "limitation", Limitations: []engine.Limitation{{Kind: "watchdog", Message: "blocked"}}}),
	}, false)
	if status, _ := StatusOf(Outcome{Result: c}); err != nil || status != StatusAbandoned {
		t.Errorf("abandoned part: %v, status %q (stopped %q)", err, status, c.Stopped)
	}
}
