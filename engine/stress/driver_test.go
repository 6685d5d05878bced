package stress

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
)

// runPlan runs plan over bodies in this process and returns its events.
func runPlan(t *testing.T, plan *Plan, bodies map[string]func(*engine.T)) []Event {
	t.Helper()
	plan.Events = filepath.Join(t.TempDir(), "events")
	if err := Run(plan, bodies); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(plan.Events)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("event %q: %v", sc.Text(), err)
		}
		evs = append(evs, e)
	}
	return evs
}

func failuresOf(evs []Event) []*Failure {
	var fs []*Failure
	for _, e := range evs {
		if e.Failure != nil {
			fs = append(fs, e.Failure)
		}
	}
	return fs
}

// drawSize is a body's input: uniform in [0, 100).
func drawSize(t *engine.T) float64 {
	return t.Draw("size", func(r *rand.Rand) float64 { return float64(r.IntN(100)) })
}

// TestDriverRecordsFailuresAndInputs: a body that fails for some inputs is reported once in
// full, with the inputs drawn, and counted every time; a re-run with those inputs fails on its
// first iteration; a body that passes is never reported.
func TestDriverRecordsFailuresAndInputs(t *testing.T) {
	bodies := map[string]func(*engine.T){
		"TestBig": func(t *engine.T) {
			if n := drawSize(t); n >= 90 {
				t.Errorf("size %v too big", n)
			}
		},
		"TestFine": func(t *engine.T) { drawSize(t) },
	}
	evs := runPlan(t, &Plan{Tests: []string{"TestBig", "TestFine"}, Combine: 1, Budget: 200 * time.Millisecond, Seed: 3}, bodies)
	fs := failuresOf(evs)
	if len(fs) != 1 || fs[0].Test != "TestBig" || fs[0].Kind != KindFail || !strings.Contains(fs[0].Message, "too big") {
		t.Fatalf("failures %+v, want one fail of TestBig", fs)
	}
	if len(fs[0].Inputs) != 1 || fs[0].Inputs[0].Name != "size" || fs[0].Inputs[0].Value < 90 {
		t.Fatalf("inputs %+v, want the size ≥ 90 drawn", fs[0].Inputs)
	}
	last := evs[len(evs)-1]
	if last.Action != "done" || len(last.Tests) != 2 {
		t.Fatalf("last event %+v, want done with both tests", last)
	}
	big, fine := last.Tests[0], last.Tests[1]
	if big.Failures[KindFail] < 2 || fine.Failures != nil || fine.Iterations == 0 {
		t.Errorf("statistics %+v, %+v: want TestBig failing about one time in ten, TestFine never", big, fine)
	}

	rerun := runPlan(t, &Plan{Tests: []string{"TestBig"}, Combine: 1, Budget: time.Second, Seed: 99, Iterations: 1,
		Repro: &Repro{Test: "TestBig", Inputs: fs[0].Inputs}}, bodies)
	if again := failuresOf(rerun); len(again) != 1 || again[0].Iteration != 1 || again[0].Inputs[0] != fs[0].Inputs[0] {
		t.Fatalf("re-run failures %+v, want the failure on iteration 1 with the inputs %+v", again, fs[0].Inputs)
	}
}

// TestDriverReportsLeaks: a goroutine of the test still blocked after the grace period is a
// leak, reported with where it was started and its stack.
func TestDriverReportsLeaks(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	bodies := map[string]func(*engine.T){
		"TestLeak": func(t *engine.T) {
			engine.Go(func() { <-release }, "leak_test.go:7")
		},
	}
	evs := runPlan(t, &Plan{Tests: []string{"TestLeak"}, Combine: 1, Budget: 50 * time.Millisecond, Seed: 1, Iterations: 1}, bodies)
	fs := failuresOf(evs)
	if len(fs) != 1 || fs[0].Kind != KindLeak || !strings.Contains(fs[0].Message, "started at leak_test.go:7") || !strings.Contains(fs[0].Stacks, "TestDriverReportsLeaks") {
		t.Fatalf("failures %+v, want a leak of the goroutine started at leak_test.go:7 with its stack", fs)
	}
}

// TestDriverCombinesTests: with Combine 2, both tests run in every round, side by side, and
// a test that calls Parallel is marked so.
func TestDriverCombinesTests(t *testing.T) {
	bodies := map[string]func(*engine.T){
		"TestA": func(t *engine.T) { t.Parallel() },
		"TestB": func(t *engine.T) { time.Sleep(100 * time.Microsecond) },
	}
	evs := runPlan(t, &Plan{Tests: []string{"TestA", "TestB"}, Combine: 2, Budget: 100 * time.Millisecond, Seed: 1}, bodies)
	last := evs[len(evs)-1]
	if last.Rounds == 0 || last.Combinations["TestA+TestB"] != last.Rounds {
		t.Fatalf("rounds %d, combinations %v: want every round to run TestA+TestB", last.Rounds, last.Combinations)
	}
	if !last.Tests[0].Parallel || last.Tests[1].Parallel {
		t.Errorf("parallel marks %+v, want TestA only", last.Tests)
	}
	// Runs of TestA fill TestB's: C_A ≫ 1, so TestA ran many more iterations.
	if last.Tests[0].Iterations <= 2*last.Tests[1].Iterations {
		t.Errorf("iterations %d and %d: want C_i to give the short test more runs", last.Tests[0].Iterations, last.Tests[1].Iterations)
	}
}
