package main

import (
	"go/format"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine/schedule"
)

// opposite deadlocks when its two goroutines each take their first lock before the other
// takes its second. It is written unformatted (spaces inside calls and indenting, two blank
// lines), so that gofmt moves its lines and columns.
const opposite = `package m

import (
	"sync"
	"testing"
)

func TestOpposite(t *testing.T) {
	var a, b sync.Mutex
	var wg sync.WaitGroup


	wg.Add( 2 )
	go func() {
		defer wg.Done()
        a.Lock()
        b.Lock()
		b.Unlock()
		a.Unlock()
	}()
	go func() {
		defer wg.Done()
		b.Lock()
		a.Lock()
		a.Unlock()
		b.Unlock()
	}()
	wg.Wait()
}
`

// A found deadlock stays found: its schedule replays to the same bug after a comment and a
// blank line above the test, gofmt of the file, and a new function in it; a change on its
// path is reported as the source changed, with the step, not as nondeterminism. interleave
// test replays it before exploring: with one fresh schedule it fails at once from the saved
// one; kept in testdata/interleave and the results store removed (a clean checkout), the
// committed schedule does the same.
func TestSavedScheduleSurvivesEditsAndReplaysFirst(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	if runtime.GOOS == "windows" {
		t.Skip("uses /dev/fd")
	}
	dir := writeModule(t, map[string]string{"x_test.go": opposite})
	// One worker process: with two, each may find the deadlock and save its own schedule,
	// and the replay below would meet the other one first.
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-json", "-p", "1", "-minimize", "0", ".")
	if code != 1 {
		t.Fatalf("interleave test: exit %d\n%s\n%s", code, out, errOut)
	}
	found := finalEvent(t, out, "TestOpposite")
	if found.Bug == nil || found.Bug.Kind != "deadlock" {
		t.Fatalf("final event %+v, want a deadlock", found)
	}
	saved := found.Bug.Schedule
	f, err := schedule.Load(saved)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Source) == 0 {
		t.Fatalf("the saved schedule anchors no position in the source:\n%s", readFile(t, saved))
	}

	formatted, err := format.Source([]byte(opposite))
	if err != nil {
		t.Fatal(err)
	}
	if string(formatted) == opposite {
		t.Fatal("gofmt changes nothing: the case tests nothing")
	}
	tests := []struct {
		name   string
		source string
		code   int
		stdout string   // in stdout
		stderr []string // in stderr
		not    string   // not in stderr
	}{
		{"a comment and a blank line above the test", strings.Replace(opposite, "func TestOpposite", "// TestOpposite takes two locks in opposite orders.\n\nfunc TestOpposite", 1),
			1, "deadlock found by replay", nil, "diverged"},
		{"gofmt", string(formatted), 1, "deadlock found by replay", nil, "diverged"},
		{"a new function above the test", strings.Replace(opposite, "func TestOpposite", "func helper(mu *sync.Mutex) {\n\tmu.Lock()\n\tmu.Unlock()\n}\n\nfunc TestOpposite", 1),
			1, "deadlock found by replay", nil, "diverged"},
		{"the lock order fixed: the source changed on the path", strings.Replace(opposite, "\t\tb.Lock()\n\t\ta.Lock()\n\t\ta.Unlock()\n\t\tb.Unlock()", "\t\ta.Lock()\n\t\tb.Lock()\n\t\tb.Unlock()\n\t\ta.Unlock()", 1),
			2, "", []string{"the source changed since the schedule was saved: at step", " now "}, "nondetermin"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			writeFile(t, filepath.Join(dir, "x_test.go"), tc.source)
			code, out, errOut := interleaveIn(t, dir, nil, "replay", saved)
			if code != tc.code || !strings.Contains(out, tc.stdout) {
				t.Fatalf("exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", code, tc.code, tc.stdout, out, errOut)
			}
			for _, want := range tc.stderr {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut)
				}
			}
			if strings.Contains(errOut, tc.not) {
				t.Errorf("stderr has %q:\n%s", tc.not, errOut)
			}
		})
	}

	// The bug still there (under edited source): one schedule of a fresh seed fails at once,
	// from the saved schedule.
	writeFile(t, filepath.Join(dir, "x_test.go"), tests[0].source)
	code, out, errOut = interleaveIn(t, dir, nil, "test", "-json", "-schedules", "1", "-seed", "4242", ".")
	final := finalEvent(t, out, "TestOpposite")
	if code != 1 || final.SavedFailing < 1 || final.Bug == nil || final.Bug.Schedule != saved {
		t.Fatalf("interleave test -schedules 1: exit %d, final event %+v, want 1 with the saved schedule %s failing\nstdout:\n%s\nstderr:\n%s", code, final, saved, out, errOut)
	}
	code, out, _ = interleaveIn(t, dir, nil, "test", "-schedules", "1", "-seed", "4242", ".")
	if code != 1 || !strings.Contains(out, "saved schedules:") || !strings.Contains(out, "1 still fail") {
		t.Errorf("text output: exit %d, want the saved schedules' line:\n%s", code, out)
	}

	// Kept in the package's corpus, and the results store gone: a clean checkout replays the
	// committed schedule first.
	code, out, errOut = interleaveIn(t, dir, nil, "keep", saved)
	if code != 0 || !strings.Contains(out, "kept: testdata/interleave/TestOpposite/deadlock-") {
		t.Fatalf("interleave keep: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	kept, _ := filepath.Glob(filepath.Join(dir, "testdata", "interleave", "TestOpposite", "deadlock-*.json"))
	if len(kept) != 1 {
		t.Fatalf("kept files %v, want one", kept)
	}
	if code, out, _ := interleaveIn(t, dir, nil, "keep", saved); code != 0 || !strings.Contains(out, "already kept") {
		t.Errorf("keep again: exit %d, %s", code, out)
	}
	if err := os.RemoveAll(filepath.Join(dir, ".interleave")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = interleaveIn(t, dir, nil, "test", "-json", "-schedules", "1", "-seed", "77", ".")
	final = finalEvent(t, out, "TestOpposite")
	if code != 1 || final.SavedReplayed != 1 || final.SavedFailing != 1 || final.Bug == nil || final.Bug.Schedule != kept[0] {
		t.Fatalf("clean checkout: exit %d, final event %+v, want the committed %s failing\nstdout:\n%s\nstderr:\n%s", code, final, kept[0], out, errOut)
	}

	// Fixed (the lock order): the saved schedule no longer runs as it was, and is counted
	// apart, explained; the exploration then finds no bug.
	writeFile(t, filepath.Join(dir, "x_test.go"), tests[3].source)
	code, out, errOut = interleaveIn(t, dir, nil, "test", "-json", "-schedules", "50", ".")
	final = finalEvent(t, out, "TestOpposite")
	if code != 0 || final.SavedReplayed != 1 || final.SavedFailing != 0 || final.SavedDiverged != 1 || !strings.Contains(final.Notice, "the source changed since the schedule was saved") {
		t.Fatalf("after the fix: exit %d, final event %+v\nstdout:\n%s\nstderr:\n%s", code, final, out, errOut)
	}
}

// After a fix that leaves the schedule's operations as they were, the saved schedule
// replays clean: counted as fixed, and the test passes; interleave verify says "still fails"
// before the fix (exit 1) and "fixed" after it, with the fresh schedules explored.
func TestSavedScheduleReplaysCleanAfterFix(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	if runtime.GOOS == "windows" {
		t.Skip("uses /dev/fd")
	}
	dir := writeModule(t, map[string]string{"tally.go": tally, "tally_test.go": tallyTest})
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-json", "-minimize", "0", "-points", "sync", ".")
	if code != 1 {
		t.Fatalf("interleave test: exit %d\n%s\n%s", code, out, errOut)
	}
	// interleave verify before the fix: the saved schedule still fails.
	code, out, errOut = interleaveIn(t, dir, nil, "verify", "-schedules", "20")
	if code != 1 || !strings.Contains(out, "TestAdd (example.com/m): still fails") || !strings.Contains(out, ": still fails: fail at") {
		t.Fatalf("verify before the fix: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	writeFile(t, filepath.Join(dir, "tally.go"), "// Package m tallies.\n"+strings.Replace(tally, "*n += 2", "*n += 1", 1))
	code, out, errOut = interleaveIn(t, dir, nil, "test", "-json", "-points", "sync", "-schedules", "20", ".")
	final := finalEvent(t, out, "TestAdd")
	if code != 0 || final.SavedReplayed < 1 || final.SavedFailing != 0 || final.SavedDiverged != 0 {
		t.Fatalf("after the fix: exit %d, final event %+v, want 0 with the saved schedule replayed clean\nstdout:\n%s\nstderr:\n%s", code, final, out, errOut)
	}

	// interleave verify after the fix: replayed clean, and fresh schedules clean.
	code, out, errOut = interleaveIn(t, dir, nil, "verify", "-schedules", "20")
	if code != 0 || !strings.Contains(out, "TestAdd (example.com/m): fixed") || !strings.Contains(out, ": fixed: replayed clean") || !strings.Contains(out, "fresh schedules clean") {
		t.Fatalf("verify after the fix: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// testdata/corpus is a module with a committed schedule of its deadlock in
// testdata/interleave/TestOpposite/: a clean checkout (no results store) replays it before it
// explores, and one schedule of any seed fails at once with it — what a CI job sees when the
// bug comes back.
func TestCommittedScheduleReplaysInCleanCheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	if runtime.GOOS == "windows" {
		t.Skip("uses /dev/fd")
	}
	dir := filepath.Join(t.TempDir(), "corpus")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "corpus"))); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".interleave")); err == nil {
		t.Fatal("the fixture has a results store: not a clean checkout")
	}
	committed := filepath.Join(dir, "testdata", "interleave", "TestOpposite", "deadlock-3f0e05533c67.json")
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-json", "-schedules", "1", "-seed", "99", ".")
	final := finalEvent(t, out, "TestOpposite")
	if code != 1 || final.SavedReplayed != 1 || final.SavedFailing != 1 || final.Bug == nil || final.Bug.Kind != "deadlock" || final.Bug.Schedule != committed {
		t.Fatalf("exit %d, final event %+v, want 1 with the committed schedule %s failing\nstdout:\n%s\nstderr:\n%s", code, final, committed, out, errOut)
	}
	if final.Schedules == nil || *final.Schedules != 1 {
		t.Errorf("schedules %v, want the one replayed", final.Schedules)
	}
}

// TestSavedFailureWithWorkersWritesFindings: a saved schedule that still fails, under two
// worker processes (the first replays the saved schedules, the second explores), gives a
// findings document with the bug — the workers' documents agree on the run's strategy. The
// first part's said "replay", the merge refused the two, and no findings were written: a
// second run of interleave test on a package with its bug saved left the editor nothing.
func TestSavedFailureWithWorkersWritesFindings(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := writeModule(t, map[string]string{"x_test.go": opposite})
	if code, out, errOut := interleaveIn(t, dir, nil, "test", "-json", "-p", "1", "-minimize", "0", "."); code != 1 {
		t.Fatalf("interleave test: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-json", "-p", "2", "-minimize", "0", ".")
	final := finalEvent(t, out, "TestOpposite")
	if code != 1 || final.SavedFailing < 1 || final.Bug == nil {
		t.Fatalf("second run: exit %d, final event %+v, want 1 with the saved schedule failing\n%s", code, final, errOut)
	}
	if strings.Contains(final.Notice, "differ") || final.Findings == "" {
		t.Fatalf("second run: findings %q, notice %q: want the findings written", final.Findings, final.Notice)
	}
	if doc := readFile(t, final.Findings); !strings.Contains(doc, `"deadlock"`) {
		t.Errorf("the findings document %s has no deadlock:\n%s", final.Findings, doc)
	}
}
