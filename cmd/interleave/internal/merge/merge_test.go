package merge

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/report"
	"github.com/interleave-dev/interleave/engine/bounded"
	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// shardStore writes the results store of one shard of a run, as interleave test -shard i/2
// leaves it on its machine (whose store was at machineDir): test TestX's findings with one
// bug whose schedule is in the store, the schedule file, and the run summary. It returns the
// .interleave directory, a directory of its own, as a CI job downloads it.
func shardStore(t *testing.T, shard int, machineDir string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), findings.StoreDir)
	test := findings.Test{Module: "example.com/m", Package: "example.com/m", Name: "TestX"}
	name := "TestX-fail-" + string(rune('0'+shard)) + ".json"
	machinePath := filepath.Join(machineDir, findings.StoreDir, "schedules", name)
	s := &schedule.File{Test: test, Strategy: schedule.Strategy{Name: "random"}, Execution: 3,
		Steps: []schedule.Step{{Kind: schedule.Run, G: 0, Op: "start"}, {Kind: schedule.Run, G: 1, Op: "lock"}},
		Bug:   &schedule.Bug{Kind: "fail", Message: "boom", Step: 2, G: 1}}
	if err := os.MkdirAll(filepath.Join(dir, "schedules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(filepath.Join(dir, "schedules", name)); err != nil {
		t.Fatal(err)
	}
	part := string(rune('0'+shard)) + "/2"
	f := &findings.File{Test: test, Time: time.Date(2026, 12, 1, 0, 0, shard, 0, time.UTC), Strategy: "random", Seed: 1, Budget: 10,
		Part: part, Points: "all", Schedules: 5,
		Races: []findings.Race{{A: findings.Access{Pos: "m.go:3:1", Op: "write"}, B: findings.Access{Pos: "m.go:4:1", Op: "read"}, Schedules: 2}},
		Bugs:  []findings.Bug{{Kind: "fail", Message: "boom", Pos: "m_test.go:9:2", Schedule: machinePath}}}
	if err := f.SaveIn(filepath.Join(dir, "findings")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "runs"), 0o755); err != nil {
		t.Fatal(err)
	}
	sum := &report.Summary{Version: 1, Time: f.Time, Part: part, Packages: []string{"."}, Strategy: "random", Schedules: 10, Seed: 1,
		Tests: []report.Outcome{{Package: test.Package, Test: test.Name, Result: &explore.Event{Event: "result", Package: test.Package, Test: test.Name,
			Schedules: 5, Stopped: "bug", Findings: filepath.Join(machineDir, findings.StoreDir, "findings", filepath.Base(f.Path)),
			Bug: &explore.EventBug{Kind: "fail", Message: "boom", Position: "m_test.go:9:2", Schedule: machinePath}}}}}
	if _, err := sum.Save(filepath.Join(dir, "runs")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runMerge runs interleave merge into the module at target.
func runMerge(t *testing.T, target string, stores ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = Run(append([]string{"-o", target}, stores...), &out, &errOut)
	return out.String(), errOut.String(), err
}

// snapshot is every file under dir with its content, "" when dir does not exist.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			files[p] = string(b)
		}
		return nil
	})
	return files
}

// noOutput checks that the merge into target left neither a store nor its temporary directory.
func noOutput(t *testing.T, target string) {
	t.Helper()
	entries, _ := os.ReadDir(target)
	for _, e := range entries {
		t.Errorf("the failed merge left %s in %s", e.Name(), target)
	}
}

// TestMergeRefusesUntrustedDocuments: whatever in a shard's store is not a regular file
// that decodes as what its directory holds is refused, named by its path, and nothing is
// written — in particular nothing a symbolic link points at.
func TestMergeRefusesUntrustedDocuments(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "environ")
	if err := os.WriteFile(secret, []byte("AWS_SECRET_ACCESS_KEY=hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, store string) string // returns the path the error must name
		want  string
	}{
		{"symlink to a file outside", func(t *testing.T, store string) string {
			p := filepath.Join(store, "schedules", "env.json")
			if err := os.Symlink(secret, p); err != nil {
				t.Fatal(err)
			}
			return p
		}, "a symbolic link: refusing to follow it"},
		{"symlinked schedules directory", func(t *testing.T, store string) string {
			outside := filepath.Join(t.TempDir(), "schedules")
			if err := os.Rename(filepath.Join(store, "schedules"), outside); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(store, "schedules")); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(store, "schedules")
		}, "not a directory (a symbolic link)"},
		{"FIFO", func(t *testing.T, store string) string {
			p := filepath.Join(store, "runs", "fifo.json")
			if err := mkfifo(p); err != nil {
				t.Skip("no FIFO:", err)
			}
			return p
		}, "not a regular file but a FIFO"},
		{"directory named *.json", func(t *testing.T, store string) string {
			p := filepath.Join(store, "runs", "20261201T000000.000x.json")
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		}, "not a regular file but a directory"},
		{"schedule larger than the limit", func(t *testing.T, store string) string {
			p := filepath.Join(store, "schedules", "TestX-fail-huge.json")
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(bounded.Schedule.Max + 1); err != nil { // sparse: no disk used
				t.Skip("no sparse file:", err)
			}
			return p
		}, "more than 256 MiB"},
		{"corrupt schedule", func(t *testing.T, store string) string {
			p := filepath.Join(store, "schedules", "TestX-fail-9.json")
			if err := os.WriteFile(p, []byte(`{"format": "interleave-schedule", "version": 1, "steps": [`), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}, "schedule"},
		{"corrupt run summary", func(t *testing.T, store string) string {
			p := filepath.Join(store, "runs", "20200101T000000.000.json")
			if err := os.WriteFile(p, []byte(`{"Version": 1, "Tests": 7}`), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}, "not a run summary of version 1"},
		{"corrupt findings", func(t *testing.T, store string) string {
			p := filepath.Join(store, "findings", "x.json")
			if err := os.WriteFile(p, []byte(`{"format": "interleave-findings", "version": 1, "races": [{}]}`), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}, "findings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			good := shardStore(t, 1, "/runner/1")
			bad := shardStore(t, 2, "/runner/2")
			path := tc.setup(t, bad)
			target := t.TempDir()
			_, _, err := runMerge(t, target, good, bad)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "nothing was merged") {
				t.Fatalf("merge: %v\nwant it refused, naming %s: %s", err, path, tc.want)
			}
			noOutput(t, target)
			for p, content := range snapshot(t, target) {
				if strings.Contains(content, "hunter2") {
					t.Errorf("%s holds what the symbolic link pointed at", p)
				}
			}
		})
	}
}

// TestMergeSameStoreTwice: a store given twice — by the same path, by another path, through
// a symbolic link, or copied — is merged once: its schedules are not counted twice.
func TestMergeSameStoreTwice(t *testing.T) {
	store := shardStore(t, 1, "/runner/1")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(store, link); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), findings.StoreDir)
	if err := os.CopyFS(copied, os.DirFS(store)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		second string
	}{
		{"same path", store},
		{"another path", filepath.Dir(store)},
		{"symbolic link", link},
		{"copy", copied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := t.TempDir()
			out, errOut, err := runMerge(t, target, store, tc.second)
			if err != nil {
				t.Fatal(err)
			}
			docs, errs := findings.LoadAll(target)
			if len(errs) > 0 || len(docs) != 1 {
				t.Fatalf("merged findings: %v %v", docs, errs)
			}
			if d := docs[0]; d.Schedules != 5 || d.Races[0].Schedules != 2 {
				t.Errorf("merged %d schedules, the race in %d: want the store's 5 and 2, counted once", d.Schedules, d.Races[0].Schedules)
			}
			if !strings.Contains(out, "merged 1 store(s)") || !strings.Contains(errOut, "same content") {
				t.Errorf("want one store merged and the other said to be the same:\n%s%s", out, errOut)
			}
		})
	}
}

// TestMergeSchedulePaths: a bug's schedule is named by its copy in the merged store — in
// the findings and in every run summary — and a schedule path that is not one of its
// store's schedule files (/etc/passwd) is refused.
func TestMergeSchedulePaths(t *testing.T) {
	t.Run("the store's own", func(t *testing.T) {
		target := t.TempDir()
		if _, _, err := runMerge(t, target, shardStore(t, 1, "/runner/1"), shardStore(t, 2, "/runner/2")); err != nil {
			t.Fatal(err)
		}
		docs, _ := findings.LoadAll(target)
		if len(docs) != 1 || len(docs[0].Bugs) != 1 {
			t.Fatalf("merged findings %+v", docs)
		}
		schedDir := filepath.Join(target, findings.StoreDir, "schedules") + string(filepath.Separator)
		if p := docs[0].Bugs[0].Schedule; !strings.HasPrefix(p, schedDir) {
			t.Errorf("the bug's schedule %s: want its copy in %s", p, schedDir)
		}
		runs, _ := filepath.Glob(filepath.Join(target, findings.StoreDir, "runs", "*.json"))
		if len(runs) != 3 { // the two shards' and the merged one
			t.Fatalf("runs %v", runs)
		}
		for _, p := range runs {
			s, err := report.LoadSummary(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range s.Tests {
				if e := o.Result; !strings.HasPrefix(e.Bug.Schedule, schedDir) || !strings.HasPrefix(e.Findings, filepath.Join(target, findings.StoreDir)) {
					t.Errorf("%s: %s: schedule %s, findings %s: want paths in the merged store", p, o.Test, e.Bug.Schedule, e.Findings)
				}
			}
		}
	})
	for _, foreign := range []string{"/etc/passwd", "../../../etc/shadow.json"} {
		t.Run(foreign, func(t *testing.T) {
			store := shardStore(t, 1, "/runner/1")
			doc := filepath.Join(store, "findings", findings.Name("example.com/m", "TestX"))
			f, err := findings.Load(doc)
			if err != nil {
				t.Fatal(err)
			}
			f.Bugs[0].Schedule = foreign
			if err := f.SaveIn(filepath.Dir(doc)); err != nil {
				t.Fatal(err)
			}
			target := t.TempDir()
			_, _, err = runMerge(t, target, store)
			if err == nil || !strings.Contains(err.Error(), foreign) || !strings.Contains(err.Error(), "is not a schedule file of the store") {
				t.Fatalf("merge: %v\nwant %s refused", err, foreign)
			}
			noOutput(t, target)
		})
	}
}
