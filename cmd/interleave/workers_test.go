package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/report"
	"github.com/interleave-dev/interleave/engine/findings"
)

// workersTests are three tests: a lost update (a bug, and a race), a locked counter and a
// channel handoff (no bug), small enough for DFS to explore whole.
const workersTests = racyTest + `
func TestLockedCounter(t *testing.T) {
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			n++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if n != 3 {
		t.Fatalf("n = %d, want 3", n)
	}
}

func TestHandoff(t *testing.T) {
	ch := make(chan int)
	done := make(chan bool)
	go func() {
		sum := 0
		for v := range ch {
			sum += v
		}
		done <- sum == 6
	}()
	for i := 1; i <= 3; i++ {
		ch <- i
	}
	close(ch)
	if !<-done {
		t.Fatal("wrong sum")
	}
}
`

// timing matches the parts of interleave test's summary lines that are timings.
var timing = regexp.MustCompile(`, [\d,]+/s\)|\t[\d.]+s$`)

// summaryLines are the ok/FAIL lines of interleave test's output, without their timings.
func summaryLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "FAIL\t") {
			lines = append(lines, timing.ReplaceAllString(l, ""))
		}
	}
	return lines
}

// TestWorkers checks that -p N gives the output of -p 1, in the same order, apart from
// timings: with fewer processes than tests (each test in one process) and with more (tests
// split among processes, exploring disjoint parts of their schedules).
func TestWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := writeModule(t, map[string]string{"m_test.go": workersTests})
	args := []string{"test", "-strategy", "dfs", "-schedules", "0", "-keep-going", "-minimize", "0", "-saved=false", "-points", "all"}
	code, out, errOut := interleaveIn(t, dir, nil, append(args, "-p", "1", ".")...)
	want := summaryLines(out)
	if code != 1 || len(want) != 3 {
		t.Fatalf("-p 1: exit %d, want 1 (a bug) and three tests\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(want[1], "all ") || !strings.Contains(want[2], "all ") {
		t.Fatalf("-p 1: the tests without a bug were not explored whole:\n%s", out)
	}
	for _, p := range []string{"2", "3", "7"} {
		t.Run("p"+p, func(t *testing.T) {
			code, out, errOut := interleaveIn(t, dir, nil, append(args, "-p", p, ".")...)
			if got := summaryLines(out); code != 1 || !slices.Equal(got, want) {
				t.Fatalf("-p %s: exit %d\n%s\nwant, as -p 1:\n%s\n%s", p, code, strings.Join(got, "\n"), strings.Join(want, "\n"), errOut)
			}
		})
	}
}

// TestShardsAndMerge runs the shards of a DFS exploration one after the other, as machines
// would, merges their stores and compares the result with the unsharded run's: the same
// schedules, the same races seen in the same number of schedules, the bug. Stores of another
// exploration are refused.
func TestShardsAndMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := writeModule(t, map[string]string{"m_test.go": workersTests})
	args := []string{"test", "-strategy", "dfs", "-schedules", "0", "-keep-going", "-minimize", "0", "-saved=false", "-points", "all", "-p", "1"}
	run := func(name string, extra ...string) string {
		t.Helper()
		_, _, moved := exploreAndMoveStore(t, dir, name, 1, append(slices.Clone(args), extra...))
		return moved
	}
	whole := run("whole")
	shard1 := run("shard1", "-shard", "1/2")
	shard2 := run("shard2", "-shard", "2/2")
	otherSeed := run("seed2", "-shard", "2/2", "-seed", "2")

	target := writeModule(t, map[string]string{"m_test.go": workersTests})
	reports := t.TempDir()
	sarifPath, junitPath := filepath.Join(reports, "merged.sarif"), filepath.Join(reports, "merged.xml")
	code, out, errOut := interleaveIn(t, target, nil, "merge", "-sarif", sarifPath, "-junit", junitPath, shard1, shard2)
	if code != 0 || !strings.Contains(out, "merged 2 store(s)") {
		t.Fatalf("merge: exit %d\n%s\n%s", code, out, errOut)
	}
	// The reports are the merged run's: the bug, with its schedule in the merged store.
	l := readSARIF(t, sarifPath)
	var bugs []report.SARIFResult
	sarifRaces := 0
	for _, r := range l.Runs[0].Results {
		if r.RuleID != "data-race" {
			bugs = append(bugs, r)
		} else {
			sarifRaces++
		}
	}
	if len(bugs) != 1 || len(bugs[0].Attachments) != 1 || !strings.HasPrefix(bugs[0].Attachments[0].ArtifactLocation.URI, ".interleave/schedules/") || l.Runs[0].Invocations[0].ExecutionSuccessful {
		t.Errorf("the merged SARIF log: want one bug whose schedule is in the merged store, and an unsuccessful run:\n%+v", l.Runs[0])
	}
	if x, err := os.ReadFile(junitPath); err != nil || strings.Count(string(x), "<testcase ") != 3 || strings.Count(string(x), "<failure ") != 1 {
		t.Errorf("the merged JUnit report: want 3 test cases and 1 failure (%v):\n%s", err, x)
	}
	merged, errs := findings.LoadAll(target)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	mergedRaces := 0
	for _, m := range merged {
		mergedRaces += len(m.Races)
	}
	if mergedRaces == 0 || sarifRaces != mergedRaces {
		t.Errorf("the merged SARIF log has %d data races, the merged store %d (want the same, and some)", sarifRaces, mergedRaces)
	}
	wantDocs := loadStore(t, whole)
	if len(wantDocs) != 3 {
		t.Fatalf("the whole run wrote %d findings documents, want 3", len(wantDocs))
	}
	sameAsWhole(t, merged, target, wantDocs)
	// Merging again changes nothing: every schedule is there already.
	if code, out, _ := interleaveIn(t, target, nil, "merge", shard1, shard2); code != 0 || !strings.Contains(out, "0 schedule file(s) copied") {
		t.Errorf("second merge: exit %d: %s", code, out)
	}

	// Another seed: refused, with what differs, and nothing written.
	fresh := writeModule(t, map[string]string{"m_test.go": workersTests})
	code, _, errOut = interleaveIn(t, fresh, nil, "merge", shard1, otherSeed)
	if code != 2 || !strings.Contains(errOut, "differ in seed") || !strings.Contains(errOut, "nothing was merged") {
		t.Fatalf("merge of two seeds: exit %d, want 2 naming the seed\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(fresh, findings.StoreDir)); err == nil {
		t.Errorf("a refused merge wrote %s", filepath.Join(fresh, findings.StoreDir))
	}
	if code, _, errOut := interleaveIn(t, fresh, nil, "merge", "-force", shard1, otherSeed); code != 0 {
		t.Errorf("merge -force: exit %d\n%s", code, errOut)
	}
	noRuns := filepath.Join(t.TempDir(), "findings")
	if err := os.MkdirAll(noRuns, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := interleaveIn(t, fresh, nil, "merge", "-sarif", sarifPath, filepath.Dir(noRuns)); code != 2 || !strings.Contains(errOut, "none of the stores has a run summary") {
		t.Errorf("merge -sarif of a store without runs: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := interleaveIn(t, fresh, nil, "merge", t.TempDir()); code != 2 || !strings.Contains(errOut, "not a results store") {
		t.Errorf("merge of an empty directory: exit %d\n%s", code, errOut)
	}
}

// TestPeriodShards: PERIOD cannot split a test's schedules (its slices come from its own
// executions), so its shards split the test list, whatever its length: together they explore
// every test exactly as the unsharded run does (the same summary lines, the same merged
// findings), each test in one shard; a shard left without a test says so and passes.
func TestPeriodShards(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := writeModule(t, map[string]string{"m_test.go": workersTests})
	args := []string{"test", "-strategy", "period", "-schedules", "0", "-keep-going", "-minimize", "0", "-saved=false", "-points", "all", "-p", "1"}
	run := func(name string, wantCode int, extra ...string) (lines []string, stderr, moved string) {
		t.Helper()
		out, errOut, moved := exploreAndMoveStore(t, dir, name, wantCode, append(slices.Clone(args), extra...))
		return summaryLines(out), errOut, moved
	}
	whole, _, wholeStore := run("whole", 1)
	if len(whole) != 3 || !strings.Contains(whole[1], "periods explored") {
		t.Fatalf("the whole run: want three tests explored by PERIOD to the end:\n%s", strings.Join(whole, "\n"))
	}
	var union []string
	var stores []string
	for i, c := range []struct {
		code, tests int
	}{{1, 2}, {0, 1}} { // shard 1: the lost update (a bug) and the handoff; shard 2: the locked counter
		shard := fmt.Sprintf("%d/2", i+1)
		lines, errOut, st := run("shard"+strconv.Itoa(i+1), c.code, "-shard", shard)
		if len(lines) != c.tests || !strings.Contains(errOut, fmt.Sprintf("shard %s: %d of the 3 tests, each explored whole: period cannot be partitioned", shard, c.tests)) {
			t.Fatalf("shard %s: %d tests, want %d, and the reason said\n%s\n%s", shard, len(lines), c.tests, strings.Join(lines, "\n"), errOut)
		}
		union = append(union, lines...)
		stores = append(stores, st)
	}
	if slices.Sort(union); !slices.Equal(union, slices.Sorted(slices.Values(whole))) {
		t.Errorf("the shards' tests:\n%s\nwant, as the whole run:\n%s", strings.Join(union, "\n"), strings.Join(whole, "\n"))
	}
	// A shard without a test: nothing explored, said, exit 0.
	code, out, errOut := interleaveIn(t, dir, nil, append(slices.Clone(args), "-shard", "4/4", ".")...)
	if code != 0 || len(summaryLines(out)) != 0 || !strings.Contains(errOut, "shard 4/4: 0 of the 3 tests") {
		t.Fatalf("shard 4/4 of 3 tests: exit %d, want 0 with nothing explored and the reason said\n%s\n%s", code, out, errOut)
	}

	target := writeModule(t, map[string]string{"m_test.go": workersTests})
	if code, out, errOut := interleaveIn(t, target, nil, append([]string{"merge"}, stores...)...); code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, out, errOut)
	}
	merged, errs := findings.LoadAll(target)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	sameAsWhole(t, merged, target, loadStore(t, wholeStore))
}

// exploreAndMoveStore runs interleave with args on the module in dir, checks its exit code, and
// moves the results store it made to a new directory named name, as a shard's CI job would
// upload it; it returns the output and that directory.
func exploreAndMoveStore(t *testing.T, dir, name string, wantCode int, args []string) (stdout, stderr, moved string) {
	t.Helper()
	code, out, errOut := interleaveIn(t, dir, nil, append(args, ".")...)
	if code != wantCode {
		t.Fatalf("%s: exit %d, want %d\n%s\n%s", name, code, wantCode, out, errOut)
	}
	moved = filepath.Join(t.TempDir(), name)
	if err := os.Rename(filepath.Join(dir, findings.StoreDir), moved); err != nil {
		t.Fatal(err)
	}
	return out, errOut, moved
}

// sameAsWhole checks merged shards' findings documents against the unsharded run's: the same
// tests with the same numbers of schedules, the same races seen in the same numbers of
// schedules, the same bugs, whose schedules are in the merged store (under target).
func sameAsWhole(t *testing.T, merged []*findings.File, target string, wantDocs []*findings.File) {
	t.Helper()
	if len(merged) != len(wantDocs) || len(merged) == 0 {
		t.Fatalf("%d merged documents, %d of the whole run", len(merged), len(wantDocs))
	}
	for i, m := range merged {
		w := wantDocs[i]
		if m.Test.Name != w.Test.Name || m.Schedules != w.Schedules || m.Part != "" {
			t.Errorf("%s: merged %d schedules (part %q), the whole run %s %d", m.Test.Name, m.Schedules, m.Part, w.Test.Name, w.Schedules)
		}
		if len(m.Races) != len(w.Races) {
			t.Errorf("%s: merged races %v, whole %v", m.Test.Name, m.Races, w.Races)
			continue
		}
		for j := range m.Races {
			if m.Races[j].Key() != w.Races[j].Key() || m.Races[j].Schedules != w.Races[j].Schedules {
				t.Errorf("%s: merged race %s in %d schedules, whole %s in %d", m.Test.Name, m.Races[j].Key(), m.Races[j].Schedules, w.Races[j].Key(), w.Races[j].Schedules)
			}
		}
		if len(m.Bugs) != len(w.Bugs) {
			t.Errorf("%s: merged bugs %v, whole %v", m.Test.Name, m.Bugs, w.Bugs)
		}
		for _, b := range m.Bugs {
			if _, err := os.Stat(b.Schedule); err != nil || !strings.HasPrefix(b.Schedule, target) {
				t.Errorf("%s: the bug's schedule %s is not in the merged store: %v", m.Test.Name, b.Schedule, err)
			}
		}
	}
}

// loadStore reads the findings documents of a store directory (a moved .interleave).
func loadStore(t *testing.T, store string) []*findings.File {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(store, "findings", "*.json"))
	var docs []*findings.File
	for _, p := range paths {
		d, err := findings.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	slices.SortFunc(docs, func(a, b *findings.File) int { return strings.Compare(a.Test.Name, b.Test.Name) })
	return docs
}

// TestPartsGrowRacyPoints: a race the detection phase does not see (SCTBench-Go's
// ctrace-test) makes its accesses scheduling points when first seen while exploring — in a
// test split among worker processes too, where each part grows its own points — so -p 2
// finds the bug as -p 1 does.
func TestPartsGrowRacyPoints(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an SCTBench-Go benchmark")
	}
	dir, err := filepath.Abs("../../testdata/sctbench/misc/ctrace_test")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"1", "2"} {
		e := testEvent(t, dir, "-p", p, "-schedules", "10000", "-seed", "1", "-minimize", "0", "-saved=false", "-points", "racy")
		if e.Bug == nil || e.Bug.Kind != "panic" {
			t.Errorf("-p %s: no panic in %d schedules, want ctrace-test's use after free", p, *e.Schedules)
		}
	}
}

// TestPeriodLockstepWorkers: a test explored by PERIOD with -p N is explored by N worker
// processes in step (strategy.Lockstep), and its output is -p 1's apart from timings: the same
// schedules, interleavings and exhaustion claim, the same first bug with the same report —
// and so are its findings (the races seen in the same numbers of schedules, the bug's
// schedule). Without -keep-going, the worker that finds the bug stops the others, which may
// be waiting for its outcomes.
func TestPeriodLockstepWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := writeModule(t, map[string]string{"m_test.go": workersTests})
	firstLine := regexp.MustCompile(`interleave: .* found by .*`)
	for _, c := range []struct {
		test   string
		points string
		code   int
	}{
		{"TestLostUpdate", "all", 1},
		{"TestLostUpdate", "racy", 1},
		{"TestLockedCounter", "all", 0},
		{"TestHandoff", "all", 0},
	} {
		t.Run(c.test+"/"+c.points, func(t *testing.T) {
			args := []string{"test", "-strategy", "period", "-schedules", "0", "-keep-going", "-minimize", "0", "-saved=false", "-points", c.points, "-run", "^" + c.test + "$"}
			wholeOut, _, wholeStore := exploreAndMoveStore(t, dir, "whole", c.code, append(slices.Clone(args), "-p", "1"))
			want := summaryLines(wholeOut)
			if len(want) != 1 || !strings.Contains(want[0], "periods explored") && c.code == 0 {
				t.Fatalf("-p 1: want the test explored by PERIOD to the end:\n%s", wholeOut)
			}
			for _, p := range []string{"2", "3"} {
				out, _, store := exploreAndMoveStore(t, dir, "p"+p, c.code, append(slices.Clone(args), "-p", p))
				if got := summaryLines(out); !slices.Equal(got, want) {
					t.Errorf("-p %s:\n%s\nwant, as -p 1:\n%s", p, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				if c.code == 1 && firstLine.FindString(out) != firstLine.FindString(wholeOut) {
					t.Errorf("-p %s: the bug's report begins %q, -p 1's %q", p, firstLine.FindString(out), firstLine.FindString(wholeOut))
				}
				// The store, merged into a fresh module so that the bug's schedule is found
				// there, holds the whole run's findings.
				target := writeModule(t, map[string]string{"m_test.go": workersTests})
				if code, out, errOut := interleaveIn(t, target, nil, "merge", store); code != 0 {
					t.Fatalf("merge: exit %d\n%s\n%s", code, out, errOut)
				}
				merged, errs := findings.LoadAll(target)
				if len(errs) > 0 {
					t.Fatal(errs)
				}
				sameAsWhole(t, merged, target, loadStore(t, wholeStore))
			}
			// The workers' logs (-v) show that the test was split.
			_, out, _ := interleaveIn(t, dir, nil, append(slices.Clone(args), "-p", "2", "-v", ".")...)
			if !strings.Contains(out, "--- worker 2/2:") {
				t.Errorf("-p 2: the test was not explored by 2 workers:\n%s", out)
			}
			if err := os.RemoveAll(filepath.Join(dir, findings.StoreDir)); err != nil {
				t.Fatal(err)
			}
		})
	}
	// The first bug stops the workers.
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-strategy", "period", "-minimize", "0", "-saved=false", "-points", "all", "-run", "^TestLostUpdate$", "-p", "2", ".")
	if code != 1 || !strings.Contains(out, "--- BUG: TestLostUpdate") {
		t.Fatalf("without -keep-going: exit %d, want 1 and the bug\n%s\n%s", code, out, errOut)
	}
}
