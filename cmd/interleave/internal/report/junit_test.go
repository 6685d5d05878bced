package report

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine/explore"
)

// The report is well-formed XML whatever the messages hold, and a test that could not be
// explored is an error.
func TestJUnitReport(t *testing.T) {
	f := &Config{Strategy: "pct", Params: map[string]string{"d": "3"}, Seed: 7, Schedules: 10, Points: "racy"}
	outcomes := []Outcome{
		{Package: "p", Test: "TestBroken", Err: "build failed: <&> \x00\x1b"},
		{Package: "p", Test: "TestDeadlock", Result: &explore.Event{Elapsed: 1.5, Schedules: 3, Strategy: "pct", Report: "deadlock \x07 <here>",
			Bug: &explore.EventBug{Kind: "deadlock", Message: "all goroutines are blocked", Position: "p.go:3:2", Schedule: "/s.json"}}},
		{Package: "q", Test: "TestFine", Result: &explore.Event{Elapsed: 0.25, Schedules: 10, Interleavings: 4, Strategy: "pct", Notice: "goroutines went on"}},
	}
	r := JUnit(f, outcomes, time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC))
	path := filepath.Join(t.TempDir(), "r.xml")
	if err := WriteJUnit(path, r); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var back JUnitSuites
	if err := xml.Unmarshal(b, &back); err != nil {
		t.Fatalf("not well-formed: %v\n%s", err, b)
	}
	if back.Tests != 3 || back.Errors != 1 || back.Failures != 1 || len(back.Suites) != 2 || back.Time != "1.750" {
		t.Fatalf("report %+v", back)
	}
	if e := back.Suites[0].Cases[0].Error; e == nil || !strings.HasPrefix(e.Message, "build failed: <&>") {
		t.Errorf("error %+v", e)
	}
	if c := back.Suites[1].Cases[0]; !strings.Contains(c.SystemOut, "notice: goroutines went on") || c.Time != "0.250" {
		t.Errorf("TestFine %+v", c)
	}
	if p := back.Suites[0].Properties; p[len(p)-1].Name != "pct.d" || p[len(p)-1].Value != "3" {
		t.Errorf("properties %+v", p)
	}
}
