package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/test"
	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// raceMarked returns, for each package directory of the race suite below root, the lines
// marked "// race" ("file.go:12", slash-separated, relative to root).
func raceMarked(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := make(map[string][]string)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		pkg := filepath.ToSlash(filepath.Dir(rel))
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			if strings.HasSuffix(strings.TrimSpace(sc.Text()), "// race") {
				out[pkg] = append(out[pkg], fmt.Sprintf("%s:%d", filepath.ToSlash(rel), n))
			}
		}
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// lineOf drops the column of a "file:line:col" position.
func lineOf(pos string) string {
	if i := strings.LastIndexByte(pos, ':'); i > 0 && strings.Count(pos, ":") >= 2 {
		return pos[:i]
	}
	return pos
}

// TestRaceSuites runs the race suites of testdata/races: every race of the racy programs is
// found with both exact lines (the lines marked "// race", no other), by interleave test and
// by interleave races; the race-free programs, which use every kind of synchronization, show
// no race in 10,000 schedules each.
func TestRaceSuites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the race suites")
	}
	root, err := filepath.Abs("../../testdata/races")
	if err != nil {
		t.Fatal(err)
	}
	marked := raceMarked(t, root)
	store := filepath.Join(root, ".interleave", "findings")
	os.RemoveAll(store)
	for _, suite := range []struct {
		dir  string
		args []string
	}{
		{"racy", []string{"-schedules", "2000"}},
		// PCT never exhausts its space, so each test really runs 10,000 schedules.
		{"racefree", []string{"-strategy", "pct", "-schedules", "10000"}},
	} {
		args := append([]string{"test", "-json"}, suite.args...)
		args = append(args, "./"+suite.dir+"/...")
		code, out, errOut := interleaveIn(t, root, nil, args...)
		if code != 0 {
			t.Fatalf("interleave %s: exit %d, want 0 (races are findings)\n%s\n%s", strings.Join(args, " "), code, out, errOut)
		}
		for _, line := range strings.Split(out, "\n") {
			var e test.JSONEvent
			if json.Unmarshal([]byte(line), &e) != nil || e.Test == "" || (e.Action != "pass" && e.Action != "fail") {
				continue
			}
			if suite.dir == "racefree" && (e.Schedules == nil || *e.Schedules != 10000) {
				t.Errorf("%s %s: %v schedules, want 10,000", e.Package, e.Test, e.Schedules)
			}
		}
	}
	code, out, errOut := interleaveIn(t, root, nil, "races", "-json", "./...")
	if code != 1 {
		t.Fatalf("interleave races: exit %d, want 1 (races listed)\n%s\n%s", code, out, errOut)
	}
	var groups []raceGroup
	if err := json.Unmarshal([]byte(out), &groups); err != nil {
		t.Fatalf("interleave races -json: %v\n%s", err, out)
	}
	found := make(map[string][]string) // package dir -> lines
	for _, g := range groups {
		for _, a := range []string{g.Race.A.Pos, g.Race.B.Pos} {
			pkg := filepath.ToSlash(filepath.Dir(strings.SplitN(a, ":", 2)[0]))
			found[pkg] = append(found[pkg], lineOf(a))
		}
		for _, a := range []struct {
			stack   int
			created string
			g       int
		}{{len(g.Race.A.Stack), g.Race.A.Created, g.Race.A.Goroutine}, {len(g.Race.B.Stack), g.Race.B.Created, g.Race.B.Goroutine}} {
			if a.stack == 0 || (a.g != 0 && a.created == "") {
				t.Errorf("race %s: an access without a stack or creation site: %+v", g.Key, g.Race)
			}
		}
	}
	for pkg, want := range marked {
		got := slices.Compact(slices.Sorted(slices.Values(found[pkg])))
		sort.Strings(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: races on lines %q, want the marked lines %q", pkg, got, want)
		}
		if strings.HasPrefix(pkg, "racy/") && len(want) == 0 {
			t.Errorf("%s: a racy program without marked lines", pkg)
		}
	}
	for pkg := range found {
		if _, ok := marked[pkg]; !ok {
			t.Errorf("races reported in %s, which is not a package of the suite", pkg)
		}
	}

	// Side by side with go test -race on the same programs: every race it reports, with
	// both lines, Interleave reports too.
	if out, err := exec.Command("go", "env", "CGO_ENABLED").Output(); err != nil || strings.TrimSpace(string(out)) != "1" {
		t.Log("go test -race needs cgo: not compared")
		return
	}
	ours := make(map[[2]string]bool)
	for _, g := range groups {
		a, b := lineOf(g.Race.A.Pos), lineOf(g.Race.B.Pos)
		ours[[2]string{a, b}], ours[[2]string{b, a}] = true, true
	}
	theirs := goRaceReports(t, root, "./racy/...", 10)
	if len(theirs) == 0 {
		t.Fatal("go test -race reported no race in the racy suite")
	}
	for _, p := range theirs {
		if !ours[p] {
			t.Errorf("go test -race reported a race between %s and %s; interleave did not", p[0], p[1])
		}
	}
	if racefree := goRaceReports(t, root, "./racefree/...", 3); len(racefree) > 0 {
		t.Errorf("go test -race reported races in the race-free suite: %v", racefree)
	}
	t.Logf("go test -race: %d reports, all among interleave's %d races", len(theirs), len(groups))
}

// raceAccessHeader starts an access of a report of go test -race; raceReportFrame is a
// frame's file:line.
var (
	raceAccessHeader = regexp.MustCompile(`^(Previous )?(read|write|Read|Write)( of size \d+)? at 0x`)
	raceReportFrame  = regexp.MustCompile(`^\s+(/\S+\.go):(\d+)`)
)

// goRaceReports runs the packages under go test -race (real goroutines, the runtime's race
// detector) count times and returns each race it reported as the pair of racing lines
// ("file.go:12", relative to root): for each access, the first frame in root's files.
func goRaceReports(t *testing.T, root, pattern string, count int) [][2]string {
	t.Helper()
	cmd := exec.Command("go", "test", "-race", fmt.Sprintf("-count=%d", count), pattern)
	cmd.Dir = root
	out, _ := cmd.CombinedOutput() // races make it fail
	var pairs [][2]string
	var cur []string
	want := false
	for _, line := range strings.Split(string(out), "\n") {
		switch {
		case strings.HasPrefix(line, "WARNING: DATA RACE"):
			cur = nil
		case raceAccessHeader.MatchString(line):
			want = true
		case strings.HasPrefix(line, "Goroutine "):
			want = false
		case strings.HasPrefix(line, "=================="):
			if len(cur) == 2 {
				pairs = append(pairs, [2]string{cur[0], cur[1]})
			}
			cur = nil
		case want:
			m := raceReportFrame.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			rel, err := filepath.Rel(root, m[1])
			if err != nil || strings.HasPrefix(rel, "..") {
				continue // the runtime's frames (a map assignment, append)
			}
			cur = append(cur, filepath.ToSlash(rel)+":"+m[2])
			want = false
		}
	}
	return pairs
}

// TestRacesFailReplays runs a racy program with -races=fail: the first race is the bug, its
// schedule (which records the points) replays to the same race, and -races=off finds nothing.
func TestRacesFailReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	root, err := filepath.Abs("../../testdata/races")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := interleaveIn(t, root, nil, "test", "-json", "-races", "fail", "./racy/lazyinit")
	if code != 1 {
		t.Fatalf("-races=fail: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	final := finalEvent(t, out, "TestConcurrentGet")
	if final.Bug == nil || final.Bug.Kind != "race" || !strings.Contains(final.Bug.Message, "data race") ||
		!strings.HasPrefix(final.Bug.Position, "racy/lazyinit/config.go:3") {
		t.Fatalf("final event %+v, want a race in config.go", final)
	}
	code, out, errOut = interleaveIn(t, root, nil, "replay", final.Bug.Schedule)
	if code != 1 || !strings.Contains(out+errOut, "data race") {
		t.Fatalf("replay: exit %d, want 1 with the race\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = interleaveIn(t, root, nil, "test", "-json", "-races", "off", "-points", "all", "./racy/lazyinit")
	if code != 0 || finalEvent(t, out, "TestConcurrentGet").Races != nil && *finalEvent(t, out, "TestConcurrentGet").Races != 0 {
		t.Fatalf("-races=off: exit %d, want 0 and no race\n%s\n%s", code, out, errOut)
	}
}

// A findings document that cannot be read is named, the races of the others are still
// listed, and the exit status (2) says the list may be incomplete.
func TestRacesWithCorruptDocument(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := &findings.File{
		Test:      schedule.Test{Module: "example.com/m", Package: "example.com/m", Name: "TestCount"},
		Schedules: 10,
		Races: []findings.Race{{
			A:             findings.Access{Pos: "m.go:5:2", File: "m.go", Line: 5, Col: 2, Op: "write", Goroutine: 1},
			B:             findings.Access{Pos: "m.go:9:9", File: "m.go", Line: 9, Col: 9, Op: "read", Goroutine: 2},
			FirstSchedule: 1, Schedules: 4,
		}},
	}
	if err := good.Save(root); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(root, ".interleave", "findings", "example.com_m.TestBroken.json")
	if err := os.WriteFile(bad, []byte(`{"format": "interleave-findings", "version": 1, "races": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := interleaveIn(t, root, nil, "races", "./...")
	if code != 2 || !strings.Contains(out, "m.go:5") || !strings.Contains(errOut, "TestBroken.json") || !strings.Contains(errOut, "could not be read") {
		t.Fatalf("exit %d, want 2 with the good race listed and the bad document named\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
