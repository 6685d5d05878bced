package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine/schedule"
)

// 400 schedules of one test and kind saved in a loop are 400 files, each still holding what
// its save wrote. Named by test, kind and millisecond and written by rename, they replaced each
// other (400 saves kept 161).
func TestSaveScheduleKeepsEveryFile(t *testing.T) {
	dir := t.TempDir()
	const saves = 400
	paths := map[string]int{}
	for i := 1; i <= saves; i++ {
		f := &schedule.File{Test: schedule.Test{Package: "example.com/m", Name: "TestX"}, Execution: i,
			Bug: &schedule.Bug{Kind: "fail", Message: "x", G: -1}}
		path, err := SaveSchedule(dir, f)
		if err != nil {
			t.Fatal(err)
		}
		if f.Path != path {
			t.Fatalf("f.Path %q, returned %q", f.Path, path)
		}
		if j, dup := paths[path]; dup {
			t.Fatalf("saves %d and %d both wrote %s", j, i, path)
		}
		paths[path] = i
	}
	for path, i := range paths {
		f, err := schedule.Load(path)
		if err != nil {
			t.Fatalf("save %d: %v", i, err)
		}
		if f.Execution != i {
			t.Errorf("%s holds save %d's schedule, want save %d's", filepath.Base(path), f.Execution, i)
		}
	}
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != saves {
		t.Errorf("%d files (%v), want %d", len(entries), err, saves)
	}
}

// A schedule file already there is never replaced: saves in the same millisecond as files
// already named for it take the next free names.
func TestSaveScheduleNeverReplacesAFile(t *testing.T) {
	defer func(clock func() time.Time) { now = clock }(now)
	at := time.Date(2026, 12, 2, 1, 2, 3, 4e6, time.UTC)
	now = func() time.Time { return at }
	dir := t.TempDir()
	planted := []string{"TestX-fail-20261202T010203.004.json", "TestX-fail-20261202T010203.004-2.json", "TestX-fail-20261202T010203.004-4.json"}
	for _, name := range planted {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("planted\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for i := 1; i <= 5; i++ {
		f := &schedule.File{Test: schedule.Test{Package: "example.com/m", Name: "TestX"}, Execution: i, Bug: &schedule.Bug{Kind: "fail", G: -1}}
		path, err := SaveSchedule(dir, f)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.Base(path))
	}
	want := []string{"TestX-fail-20261202T010203.004-3.json", "TestX-fail-20261202T010203.004-5.json", "TestX-fail-20261202T010203.004-6.json",
		"TestX-fail-20261202T010203.004-7.json", "TestX-fail-20261202T010203.004-8.json"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("saved as %q, want %q", got, want)
	}
	for _, name := range planted {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != "planted\n" {
			t.Errorf("%s: %q, %v: replaced by a save", name, b, err)
		}
	}
}

// A name whose schedule as found (minimization's ….found.json) is still there is not taken
// again: the schedule minimized next would keep its own as found there.
func TestSaveScheduleSkipsFoundName(t *testing.T) {
	dir := t.TempDir()
	f := &schedule.File{Test: schedule.Test{Package: "p", Name: "TestY"}, Bug: &schedule.Bug{Kind: "panic", G: -1}}
	first, err := SaveSchedule(dir, f)
	if err != nil {
		t.Fatal(err)
	}
	found := first[:len(first)-len(".json")] + ".found.json"
	if err := os.Rename(first, found); err != nil {
		t.Fatal(err)
	}
	// However fast the next saves are, none takes the first one's name.
	for i := 0; i < 50; i++ {
		path, err := SaveSchedule(dir, f)
		if err != nil {
			t.Fatal(err)
		}
		if path == first {
			t.Fatalf("save %d took %s, whose schedule as found is there", i, path)
		}
	}
}

// WriteNew never replaces a file, with or without hard links, and leaves no temporary file.
func TestWriteNew(t *testing.T) {
	for _, tc := range []struct {
		name string
		link func(string, string) error
	}{
		{"links", os.Link},
		{"no links", func(old, new string) error {
			return &os.LinkError{Op: "link", Old: old, New: new, Err: errors.ErrUnsupported}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func(l func(string, string) error) { link = l }(link)
			link = tc.link
			dir := t.TempDir()
			path := filepath.Join(dir, "a.json")
			if err := WriteNew(path, []byte("first")); err != nil {
				t.Fatal(err)
			}
			if err := WriteNew(path, []byte("second")); !errors.Is(err, fs.ErrExist) {
				t.Fatalf("second WriteNew: %v, want fs.ErrExist", err)
			}
			if b, _ := os.ReadFile(path); string(b) != "first" {
				t.Fatalf("file holds %q, want the first write's", b)
			}
			got, err := CreateUnique(dir, "a", ".json", []byte("third"), nil)
			if err != nil || filepath.Base(got) != "a-2.json" {
				t.Fatalf("CreateUnique: %q, %v; want a-2.json", got, err)
			}
			if fi, err := os.Stat(got); err != nil || fi.Mode().Perm() != 0o644 {
				t.Fatalf("%s: %v, %v; want mode 0644", got, fi, err)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 2 {
				t.Fatalf("%d files, want a.json and a-2.json (no temporary file left)", len(entries))
			}
		})
	}
}
