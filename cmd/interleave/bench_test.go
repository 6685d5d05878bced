package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/bench"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/test"
)

// TestBenchEndToEnd runs interleave bench on two small benchmarks (a toy and CS.account_bad)
// with three techniques and a small limit, then runs the same cells through interleave test
// -json, another path to the same test binaries, and checks that the tables say what those
// events say: schedules, buggy schedules and schedules to the first bug.
func TestBenchEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the benchmarks")
	}
	suite, err := filepath.Abs("../../testdata/sctbench")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	const limit = 300
	var stdout, stderr bytes.Buffer
	err = runBench([]string{"-limit", strconv.Itoa(limit), "-techniques", "rand,pct3,ipb", "-native", "20", "-suite", suite, "-o", out,
		"toy/figure1", "cs/account_bad"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("interleave bench: %v\n%s", err, stderr.String())
	}
	// The summary counts CS.account_bad among the benchmarks and the toy apart.
	summary := stdout.String()
	for _, want := range []string{"bugs found in 1 SCTBench benchmarks at limit 300: IPB: 1/1, Rand: 1/1, PCT d=3: 1/1", "toy programs (not among the 49): IPB: 1/1, Rand: 1/1, PCT d=3: 1/1"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	for _, f := range []string{"results.md", "results.tsv", "results.json", "figure4.svg", "figure4.png"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	data, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run bench.Run
	if err := json.Unmarshal(data, &run); err != nil {
		t.Fatal(err)
	}
	if len(run.Cells) != 6 || len(run.Natives) != 2 {
		t.Fatalf("%d cells and %d natives, want 6 and 2", len(run.Cells), len(run.Natives))
	}
	md, err := os.ReadFile(filepath.Join(out, "results.md"))
	if err != nil {
		t.Fatal(err)
	}

	// The randomized cells against interleave test with the same strategy, seed and limit:
	// -keep-going counts the buggy schedules; without it, the run stops at the first bug.
	for _, tc := range []struct {
		pkg, technique, strategy string
	}{
		{"cs/account_bad", "rand", "random"},
		{"cs/account_bad", "pct3", "pct:d=3"},
		{"toy/figure1", "rand", "random"},
	} {
		c := run.Cell(tc.pkg, tc.technique)
		if c == nil || c.Error != "" {
			t.Fatalf("%s × %s: %+v", tc.pkg, tc.technique, c)
		}
		all := testEvent(t, filepath.Join(suite, tc.pkg), "-p", "1", "-strategy", tc.strategy, "-schedules", strconv.Itoa(limit), "-seed", "1", "-keep-going", "-minimize", "0")
		first := testEvent(t, filepath.Join(suite, tc.pkg), "-p", "1", "-strategy", tc.strategy, "-schedules", strconv.Itoa(limit), "-seed", "1", "-minimize", "0")
		if c.Schedules != limit || c.Schedules != *all.Schedules || c.Buggy != *all.Buggy || c.FirstBug != *first.Schedules {
			t.Errorf("%s × %s: bench says %d schedules, %d buggy, first bug at %d; interleave test says %d, %d, %d",
				tc.pkg, tc.technique, c.Schedules, c.Buggy, c.FirstBug, *all.Schedules, *all.Buggy, *first.Schedules)
		}
		if tc.pkg == "cs/account_bad" {
			// Table IV's row: ours, then the paper's (Rand: 8 and 11912; PCT d=3: 5 and 19527).
			published := map[string][2]string{"rand": {"8", "11912"}, "pct3": {"5", "19527"}}[tc.technique]
			want := " " + strconv.Itoa(c.FirstBug) + " (" + published[0] + ") | " + strconv.Itoa(c.Buggy) + " (" + published[1] + ") | "
			if !strings.Contains(string(md), want) {
				t.Errorf("results.md has no %s cell %q", tc.technique, want)
			}
		}
	}

	// IPB on CS.account_bad: the bound of the first bug is explored to its end (§5). Whatever
	// the bound, interleave test with ipb -max bound explores exactly the schedules the cell
	// reports, with the same buggy count.
	c := run.Cell("cs/account_bad", "ipb")
	if c == nil || !c.Found() || c.Stopped != "exhausted" {
		t.Fatalf("IPB cell: %+v", c)
	}
	e := testEvent(t, filepath.Join(suite, "cs/account_bad"), "-strategy", "ipb", "-max", strconv.Itoa(c.Bound), "-schedules", strconv.Itoa(limit), "-keep-going", "-minimize", "0")
	if c.Schedules != *e.Schedules || c.Buggy != *e.Buggy {
		t.Errorf("IPB bound %d: bench says %d schedules, %d buggy; interleave test says %d, %d", c.Bound, c.Schedules, c.Buggy, *e.Schedules, *e.Buggy)
	}
	if c.Bound > 0 {
		below := testEvent(t, filepath.Join(suite, "cs/account_bad"), "-strategy", "ipb", "-max", strconv.Itoa(c.Bound-1), "-schedules", strconv.Itoa(limit), "-keep-going", "-minimize", "0")
		if *below.Buggy != 0 || c.NewSchedules != c.Schedules-*below.Schedules {
			t.Errorf("IPB: below bound %d %d buggy of %d; the cell's new schedules %d", c.Bound, *below.Buggy, *below.Schedules, c.NewSchedules)
		}
	}

	// Native runs: 20 of each, all counted.
	for _, n := range run.Natives {
		if n.Runs != 20 || n.Error != "" || n.Buggy > n.Runs {
			t.Errorf("native %s: %+v", n.Benchmark, n)
		}
	}
}

// testEvent runs interleave test -json on the package in dir and returns its test's final
// event.
func testEvent(t *testing.T, dir string, args ...string) test.JSONEvent {
	t.Helper()
	var stdout, stderr bytes.Buffer
	// What a strategy finds by itself: not a schedule an earlier run saved.
	err := test.Run(append([]string{dir, "-json", "-saved=false"}, args...), &stdout, &stderr)
	if err != nil && err != errBug {
		t.Fatalf("interleave test %s %v: %v\n%s", dir, args, err, stderr.String())
	}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var final *test.JSONEvent
	for sc.Scan() {
		var e test.JSONEvent
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Test != "" && e.Schedules != nil {
			final = &e
		}
	}
	if final == nil || final.Buggy == nil {
		t.Fatalf("interleave test %s %v: no final event in\n%s", dir, args, stdout.String())
	}
	return *final
}

func TestParseBenchFlags(t *testing.T) {
	f, err := parseBenchFlags([]string{"cs/...", "-limit", "50", "toy/figure1", "-techniques", "rand,ipb", "-points", "racy", "-native", "0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.patterns, " ") != "cs/... toy/figure1" || f.limit != 50 || f.techniques != "rand,ipb" || f.points != "racy" || f.native != 0 {
		t.Errorf("parsed %+v", f)
	}
	if f.cellTime <= 0 || f.workers < 1 || f.seed != 1 {
		t.Errorf("defaults: %+v", f)
	}
	for _, bad := range [][]string{
		{"-limit", "0"},
		{"-p", "0"},
		{"-native", "-1"},
		{"-cell-time", "0s"},
		{"-points", "some"},
		{"-techniques", "rand,pct9"},
		{"-nosuchflag"},
	} {
		if _, err := parseBenchFlags(bad, io.Discard); !errors.Is(err, errUsage) {
			t.Errorf("%v: %v, want a usage error", bad, err)
		}
	}
}
