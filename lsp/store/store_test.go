package store_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/lsp/diagnose"
	"github.com/interleave-dev/interleave/lsp/store"
)

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestModules: a folder's modules are the one containing it and the ones below it.
func TestModules(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "go.mod"), "module example.com/top\n")
	write(t, filepath.Join(root, "sub/pkg/x.go"), "package pkg\n")
	write(t, filepath.Join(root, "nested/go.mod"), "module \"example.com/nested\"\n")
	write(t, filepath.Join(root, "nested/deeper/go.mod"), "// comment\nmodule example.com/deeper // trailing\n")
	write(t, filepath.Join(root, ".hidden/go.mod"), "module example.com/hidden\n")
	write(t, filepath.Join(root, "vendor/v/go.mod"), "module example.com/vendored\n")
	for _, tc := range []struct {
		folder string
		want   []string
	}{
		{root, []string{"example.com/top", "example.com/nested", "example.com/deeper"}},
		{filepath.Join(root, "sub/pkg"), []string{"example.com/top"}},
		{filepath.Join(root, "nested"), []string{"example.com/nested", "example.com/deeper"}},
	} {
		var got []string
		for _, m := range store.Modules(tc.folder) {
			got = append(got, m.Path)
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			// Order is by root: top, nested, nested/deeper.
			t.Errorf("Modules(%s) = %q, want %q", tc.folder, got, tc.want)
		}
	}
}

const goodFindings = `{"format": "interleave-findings", "version": 1,
 "test": {"module": "m", "package": "m", "name": "TestA"}, "time": "2026-01-01T00:00:00Z", "points": "all", "schedules": 10,
 "races": [{"a": {"pos": "a.go:3:2", "file": "a.go", "line": 3, "col": 2, "op": "write", "goroutine": 1},
            "b": {"pos": "a.go:3:2", "file": "a.go", "line": 3, "col": 2, "op": "read", "goroutine": 2},
            "firstSchedule": 1, "schedules": 4}]}`

// TestRefresh: documents are read, replaced, forgotten; a bad one is reported once and
// skipped until it is fixed.
func TestRefresh(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "go.mod"), "module m\n")
	s := store.New(store.Module{Root: root, Path: "m"})
	dir := filepath.Join(root, filepath.FromSlash(findings.Dir))
	steps := []struct {
		name      string
		do        func()
		changed   bool
		errs      int
		races     int
		schedules int
	}{
		{"empty", func() {}, false, 0, 0, 0},
		{"a document", func() { write(t, filepath.Join(dir, "m.TestA.json"), goodFindings) }, true, 0, 1, 0},
		{"nothing new", func() {}, false, 0, 1, 0},
		{"a corrupt one", func() { write(t, filepath.Join(dir, "m.TestB.json"), `{"format": "interleave-findings", "vers`) }, false, 1, 1, 0},
		{"still corrupt, changed", func() {
			write(t, filepath.Join(dir, "m.TestB.json"), `{"format": "interleave-findings", "version": 1, "races": 3}`)
		}, false, 0, 1, 0},
		{"a newer version", func() {
			write(t, filepath.Join(dir, "m.TestC.json"), `{"format": "interleave-findings", "version": 2}`)
		}, false, 1, 1, 0},
		{"fixed", func() {
			write(t, filepath.Join(dir, "m.TestB.json"), strings.Replace(goodFindings, "TestA", "TestB", 1))
		}, true, 0, 2, 0},
		{"a temporary file and a found schedule", func() {
			write(t, filepath.Join(dir, ".tmp-123"), "{")
			write(t, filepath.Join(root, ".interleave/schedules/TestA-fail-1.found.json"), "{")
		}, false, 0, 2, 0},
		{"removed", func() { os.Remove(filepath.Join(dir, "m.TestA.json")) }, true, 0, 1, 0},
	}
	for _, st := range steps {
		st.do()
		changed, errs := s.Refresh()
		snap := s.Snapshot()
		races := 0
		for _, f := range snap.Findings {
			races += len(f.Races)
		}
		if changed != st.changed || len(errs) != st.errs || races != st.races || len(snap.Schedules) != st.schedules {
			t.Errorf("%s: changed %v, errors %v, %d races, %d schedules; want %v, %d errors, %d races, %d schedules",
				st.name, changed, errs, races, len(snap.Schedules), st.changed, st.errs, st.races, st.schedules)
		}
	}
}

// FuzzStore reads any bytes as every kind of store document, and makes and places the
// diagnostics of whatever was read: nothing panics.
func FuzzStore(f *testing.F) {
	f.Add([]byte(goodFindings))
	f.Add([]byte(`{"format": "interleave-instrument", "version": 1, "package": "m", "problems": [{"pos": "a.go:1:1", "file": "a.go", "line": 1, "col": 1, "message": "x"}]}`))
	f.Add([]byte(`{"format": "interleave-schedule", "version": 1, "test": {"package": "m", "name": "TestA"}, "bug": {"kind": "deadlock", "step": 0, "goroutines": [{"id": 0, "parent": -1, "status": "blocked", "op": "lock", "pos": "a.go:2"}]}, "steps": []}`))
	f.Add([]byte(`{"format": "interleave-findings", "version": 1, "test": {"package": "m", "name": "TestA"}, "races": [], "bugs": [{"kind": "leak", "pos": "a.go:999:999", "schedule": "/nonexistent.json"}], "files": {"a.go": "00"}}`))
	f.Add([]byte("\x00\xff{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		write(t, filepath.Join(root, "go.mod"), "module m\n")
		write(t, filepath.Join(root, "a.go"), "package m\n\nfunc f(p *int) {\n\t*p++ // é𝄞\n}\n")
		for _, d := range []string{findings.Dir, findings.InstrumentDir, store.SchedulesDir} {
			write(t, filepath.Join(root, filepath.FromSlash(d), "doc.json"), string(data))
		}
		s := store.New(store.Module{Root: root, Path: "m"})
		s.Refresh()
		items := diagnose.Build([]*store.Snapshot{s.Snapshot()}, nil)
		var r diagnose.Resolver
		doc := diagnose.NewDoc(filepath.Join(root, "a.go"), "package m\n\nfunc f(p *int) {\n\t*p++ // é𝄞\n}\n", 1)
		for file, its := range items {
			for _, res := range r.Resolve(its, nil) {
				r.Diagnostic(res, func(string) *diagnose.Doc { return nil })
				res.Hover(res.Operand)
			}
			if file == doc.Path {
				r.Resolve(its, doc)
			}
		}
	})
}
