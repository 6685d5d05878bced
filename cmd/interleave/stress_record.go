package main

// The failures' records under .interleave/stress: the explorer's handoff, saving them, and
// re-running one (-repro).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/base"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/test"
	"github.com/interleave-dev/interleave/engine/bounded"
	"github.com/interleave-dev/interleave/engine/instrument"
	"github.com/interleave-dev/interleave/engine/store"
	"github.com/interleave-dev/interleave/engine/stress"
)

// stressRecord is a failure as saved under .interleave/stress: what re-running it needs.
type stressRecord struct {
	Package    string          `json:"package"`
	Dir        string          `json:"dir"`
	BuildFlags []string        `json:"buildFlags,omitempty"`
	Seed       uint64          `json:"seed"`
	Failure    *stress.Failure `json:"failure"`
	// Schedule is the schedule interleave test found for the failing test, when it did.
	Schedule string `json:"schedule,omitempty"`
	Explored string `json:"explored,omitempty"` // what the exploration said
}

// exploreFailures runs interleave test on each failing test the controlled engine can run,
// with interleave test's defaults (its processes included), and links the schedule it finds:
// stress finds the bug, the explorer makes it debuggable.
func (r *stressRun) exploreFailures(ctx context.Context, pkgs []*instrument.Package) {
	byPath := map[string]*instrument.Package{}
	for _, p := range pkgs {
		byPath[p.ImportPath] = p
	}
	seen := map[string]*stressRecord{}
	for _, rec := range r.failures {
		p := byPath[rec.Package]
		if p == nil || rec.Failure.Test == "" || ctx.Err() != nil {
			continue
		}
		key := rec.Package + " " + rec.Failure.Test
		if prev, ok := seen[key]; ok {
			rec.Schedule, rec.Explored = prev.Schedule, prev.Explored
			continue
		}
		seen[key] = rec
		if !r.f.json {
			fmt.Fprintf(r.err, "interleave stress: exploring %s %s with interleave test ...\n", rec.Package, rec.Failure.Test)
		}
		args := append(append([]string{"-json", "-p", strconv.Itoa(r.f.workers), "-run", "^" + regexp.QuoteMeta(rec.Failure.Test) + "$"}, r.f.buildFlags...), p.Dir)
		var out, errOut strings.Builder
		err := test.Run(args, &out, &errOut)
		var final *test.JSONEvent
		var lines []string
		for _, line := range strings.Split(out.String(), "\n") {
			var e test.JSONEvent
			if json.Unmarshal([]byte(line), &e) != nil || e.Test != rec.Failure.Test {
				continue
			}
			switch e.Action {
			case "output":
				lines = append(lines, strings.TrimRight(e.Output, "\n"))
			case "pass", "fail", "skip":
				final = &e
			}
		}
		switch {
		case final != nil && final.Bug != nil:
			rec.Schedule = final.Bug.Schedule
			n := 0
			if final.Schedules != nil {
				n = *final.Schedules
			}
			rec.Explored = fmt.Sprintf("interleave test found a %s (%s) in %d schedules", final.Bug.Kind, final.Bug.Message, n)
		case final != nil:
			why := strings.TrimSpace(base.LastLines(strings.Join(lines, "\n"), 3))
			if len(rec.Failure.Together) > 0 {
				why += "\nthe failure needed " + strings.Join(rec.Failure.Together, ", ") + " running at the same time, which interleave test does not do"
			}
			rec.Explored = "interleave test found no bug: " + why
		default:
			msg := strings.TrimSpace(errOut.String())
			if err != nil && msg == "" {
				msg = err.Error()
			}
			rec.Explored = "interleave test could not explore it: " + base.LastLines(msg, 5)
		}
	}
}

// safeName matches what a file name does not keep of a test's name.
var safeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// save writes each failure's record, and the run's summary, under .interleave/stress.
func (r *stressRun) save() error {
	stamp := r.started.UTC().Format("20060102T150405Z")
	for i, rec := range r.failures {
		schedules, err := store.ScheduleDir(rec.Dir)
		if err != nil {
			return fmt.Errorf("save the stress results: %w", err)
		}
		dir := filepath.Join(filepath.Dir(schedules), "stress")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("save the stress results: %w", err)
		}
		// A new file, never one of another run that started in the same second.
		stem := fmt.Sprintf("%s-%s-%s-%d", stamp, safeName.ReplaceAllString(rec.Failure.Test, "_"), safeName.ReplaceAllString(rec.Failure.Kind, "_"), i+1)
		b, _ := json.MarshalIndent(rec, "", "  ")
		path, err := store.CreateUnique(dir, stem, ".json", append(b, '\n'), nil)
		if err != nil {
			return fmt.Errorf("save the stress results: %w", err)
		}
		rel := path
		if wd, err := os.Getwd(); err == nil {
			if p, err := filepath.Rel(wd, path); err == nil {
				rel = p
			}
		}
		if !r.f.json {
			fmt.Fprintf(r.out, "%s %s: saved %s (interleave stress -repro %s)\n", rec.Failure.Kind, rec.Failure.Test, rel, rel)
			if rec.Explored != "" {
				fmt.Fprintf(r.out, "%s\n", base.IndentLines(rec.Explored, "    "))
			}
			if rec.Schedule != "" {
				fmt.Fprintf(r.out, "    schedule: %s (interleave replay %s)\n", rec.Schedule, rec.Schedule)
			}
		}
	}
	return nil
}

// stressRecordLimit bounds a stress record as a run summary is: a record is smaller still.
var stressRecordLimit = bounded.Limit{What: "a stress record", Max: bounded.Summary.Max}

// readStressRecord reads the record of -repro: a regular file of at most stressRecordLimit.
func readStressRecord(path string) (*stressRecord, error) {
	b, err := stressRecordLimit.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-repro: %w", err)
	}
	var rec stressRecord
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("-repro %s: not a stress record: %w", path, err)
	}
	if rec.Failure == nil || rec.Failure.Test == "" || rec.Dir == "" {
		return nil, fmt.Errorf("-repro %s: not a stress record: no failure, test or package directory", path)
	}
	return &rec, nil
}

// reproduce re-runs a recorded failure: its test (with the tests it ran beside) and its
// inputs, at its GOMAXPROCS, until the failure of the same kind recurs or -time is spent.
func (r *stressRun) reproduce(ctx context.Context, pkgs []*instrument.Package, rec *stressRecord, work string) error {
	var p *instrument.Package
	for _, q := range pkgs {
		if q.ImportPath == rec.Package || q.Dir == rec.Dir {
			p = q
		}
	}
	if p == nil || p.Binary == "" {
		return fmt.Errorf("-repro: package %s (%s) has no test binary", rec.Package, rec.Dir)
	}
	f := rec.Failure
	tests := append([]string{f.Test}, f.Together...)
	proc := &stressProc{pkg: p, phase: "repro", plan: stress.Plan{Tests: tests, Combine: len(tests), Seed: rec.Seed,
		Repro: &stress.Repro{Test: f.Test, Inputs: f.Inputs, GOMAXPROCS: f.GOMAXPROCS}}}
	fmt.Fprintf(r.err, "interleave stress: re-running %s %s (%s) with its inputs for up to %v\n", rec.Package, f.Test, f.Kind, r.f.budget)
	r.runAll(ctx, []*stressProc{proc}, r.f.budget, work)
	r.clearLine()
	for _, got := range r.failures {
		if got.Failure.Kind == f.Kind && got.Failure.Test == f.Test {
			fmt.Fprintf(r.out, "reproduced: %s of %s after %v\n", f.Kind, f.Test, got.Failure.Elapsed.Round(time.Millisecond))
			return errBug
		}
	}
	fmt.Fprintf(r.out, "not reproduced in %v: the failure depends on timing the inputs do not fix; run longer with -time\n", r.f.budget)
	return nil
}
