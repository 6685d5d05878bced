package findings

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSaveLoad(t *testing.T) {
	root := t.TempDir()
	f := &File{
		Test:      Test{Module: "m", Package: "m/p", Name: "TestA/sub case"},
		Time:      time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC),
		Points:    "racy",
		Schedules: 10,
		Races: []Race{{
			A:             Access{Pos: "p/a.go:3:1", File: "p/a.go", Line: 3, Col: 1, Op: "write", Goroutine: 1, Created: "p/a_test.go:9:2"},
			B:             Access{Pos: "p/a.go:7:4", File: "p/a.go", Line: 7, Col: 4, Op: "read", Stack: []Frame{{Func: "m/p.f", File: "/src/p/a.go", Line: 7}}},
			FirstSchedule: 2, Schedules: 5,
		}},
	}
	if err := f.Save(root); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, ".interleave", "findings", "m_p.TestA_sub_case-e43ad6ce.json"); f.Path != want {
		t.Fatalf("path %s, want %s", f.Path, want)
	}
	files, errs := LoadAll(root)
	if len(errs) != 0 || len(files) != 1 {
		t.Fatalf("LoadAll: %v %v", files, errs)
	}
	g := files[0]
	if g.Format != FormatName || g.Version != Version || g.Test != f.Test || len(g.Races) != 1 || g.Races[0].B.Stack[0] != f.Races[0].B.Stack[0] || g.Races[0].Key() != "p/a.go:3:1 p/a.go:7:4" {
		t.Fatalf("loaded %+v", g)
	}
}

// TestBadDocuments checks that a corrupt document, another format, another version and a
// race without positions are errors naming the file, and that LoadAll keeps the good ones.
func TestBadDocuments(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, filepath.FromSlash(Dir))
	good := &File{Test: Test{Package: "p", Name: "TestGood"}}
	if err := good.Save(root); err != nil {
		t.Fatal(err)
	}
	for name, tt := range map[string]struct{ doc, want string }{
		"corrupt.json":   {`{"format": "interleave-findings", "version": 1, "races": [`, "unexpected end"},
		"other.json":     {`{"format": "interleave-schedule", "version": 1}`, "format"},
		"newer.json":     {`{"format": "interleave-findings", "version": 2}`, "version 2"},
		"noversion.json": {`{"format": "interleave-findings"}`, "version none"},
		"nopos.json":     {`{"format": "interleave-findings", "version": 1, "races": [{"a": {"op": "write"}, "b": {"pos": "a.go:1", "op": "read"}}]}`, "without a position"},
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(tt.doc), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one naming the file and %q", name, err, tt.want)
		}
		if (name == "other.json" || name == "newer.json") && !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v is not ErrFormat", name, err)
		}
	}
	files, errs := LoadAll(root)
	if len(files) != 1 || files[0].Test.Name != "TestGood" || len(errs) != 5 {
		t.Fatalf("LoadAll: %d files, errors %v", len(files), errs)
	}
}

func TestParsePos(t *testing.T) {
	for _, tt := range []struct {
		pos, file string
		line, col int
		ok        bool
	}{
		{"a/b.go:12:3", "a/b.go", 12, 3, true},
		{"b.go:12", "b.go", 12, 0, true},
		{"C:/x/b.go:4:5", "C:/x/b.go", 4, 5, true},
		{"b.go", "b.go", 0, 0, false},
	} {
		file, line, col, ok := ParsePos(tt.pos)
		if file != tt.file || line != tt.line || col != tt.col || ok != tt.ok {
			t.Errorf("ParsePos(%q) = %q %d %d %v", tt.pos, file, line, col, ok)
		}
	}
}

// TestNamesDoNotCollide: packages a/b and a_b with a test of the same name keep a document each
// (their old file names were the same); a document under the old name is read, and replaced
// when its test's document is written again, while another test's stays.
func TestNamesDoNotCollide(t *testing.T) {
	root := t.TempDir()
	doc := func(pkg string) *File {
		return &File{Test: Test{Module: "m", Package: pkg, Name: "TestX"}, Schedules: 1,
			Races: []Race{{A: Access{Pos: pkg + "/x.go:1:1", Op: "write"}, B: Access{Pos: pkg + "/x.go:2:1", Op: "read"}}}}
	}
	for _, pkg := range []string{"m/a/b", "m/a_b"} {
		if err := doc(pkg).Save(root); err != nil {
			t.Fatal(err)
		}
	}
	files, errs := LoadAll(root)
	if len(errs) != 0 || len(files) != 2 || files[0].Test.Package == files[1].Test.Package {
		t.Fatalf("LoadAll: %d documents %v, want one per package", len(files), errs)
	}

	// An earlier version's document of m/a/b, under the shared name.
	legacy := filepath.Join(root, ".interleave", "findings", legacyName("m/a/b", "TestX"))
	old := doc("m/a/b")
	old.Format, old.Version = FormatName, Version
	data, _ := json.Marshal(old)
	if err := os.WriteFile(legacy, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if files, _ := LoadAll(root); len(files) != 3 {
		t.Fatalf("the old document is not read: %d documents", len(files))
	}
	if err := doc("m/a_b").Save(root); err != nil { // another test: the old document stays
		t.Fatal(err)
	}
	if _, err := os.Stat(legacy); err != nil {
		t.Fatalf("another test's save removed the old document: %v", err)
	}
	if err := doc("m/a/b").Save(root); err != nil { // its own test: replaced
		t.Fatal(err)
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Fatalf("the old document stays beside the new one: %v", err)
	}
}
