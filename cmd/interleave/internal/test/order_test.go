package test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/report"
	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/instrument"
	"github.com/interleave-dev/interleave/engine/store"
)

// TestStartOrder: the tests start longest first by their past durations, the tests never
// seen first and in their order; the list itself (the output's order) is left as it was.
func TestStartOrder(t *testing.T) {
	p := &instrument.Package{ImportPath: "example.com/m"}
	var jobs []*testJob
	for _, name := range []string{"TestA", "TestB", "TestC", "TestD", "TestE"} {
		jobs = append(jobs, &testJob{pkg: p, test: name})
	}
	past := map[string]time.Duration{
		"example.com/m TestA": 100 * time.Millisecond,
		"example.com/m TestB": 4 * time.Second,
		"example.com/m TestD": time.Second,
		"other.com/m TestC":   time.Hour, // another package's
	}
	var got []string
	for _, j := range startOrder(jobs, past) {
		got = append(got, j.test)
	}
	if want := []string{"TestC", "TestE", "TestB", "TestD", "TestA"}; !slices.Equal(got, want) {
		t.Errorf("start order %v, want %v", got, want)
	}
	if jobs[0].test != "TestA" || jobs[4].test != "TestE" {
		t.Errorf("the list itself was reordered")
	}
	got = got[:0]
	for _, j := range startOrder(jobs, nil) {
		got = append(got, j.test)
	}
	if want := []string{"TestA", "TestB", "TestC", "TestD", "TestE"}; !slices.Equal(got, want) {
		t.Errorf("without a past: %v, want the list's order", got)
	}
}

// TestPastDurations: each test's exploration time comes from the newest run summary that
// has it, an interrupted test's is not one, and a directory without a store gives none.
func TestPastDurations(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := pastDurations(dir); len(got) != 0 {
		t.Fatalf("no store: %v, want none", got)
	}
	runs := filepath.Join(dir, store.Dir, "runs")
	if err := os.MkdirAll(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	outcome := func(test string, seconds float64, interrupted bool) report.Outcome {
		return report.Outcome{Package: "example.com/m", Test: test, Interrupted: interrupted, Result: &explore.Event{Elapsed: seconds}}
	}
	older := &report.Summary{Version: 1, Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Tests: []report.Outcome{outcome("TestA", 1, false), outcome("TestB", 2, false), outcome("TestC", 3, false)}}
	newer := &report.Summary{Version: 1, Time: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
		Tests: []report.Outcome{outcome("TestA", 5, false), outcome("TestC", 0.5, true)}}
	for _, doc := range []*report.Summary{older, newer} {
		if _, err := doc.Save(runs); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(runs, "20260103T000000.000.json"), []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := pastDurations(dir)
	want := map[string]time.Duration{
		"example.com/m TestA": 5 * time.Second, // the newer run's
		"example.com/m TestB": 2 * time.Second,
		"example.com/m TestC": 3 * time.Second, // the newer run was interrupted in it
	}
	if len(got) != len(want) {
		t.Errorf("durations %v, want %v", got, want)
	}
	for k, d := range want {
		if got[k] != d {
			t.Errorf("%s: %v, want %v", k, got[k], d)
		}
	}
}
