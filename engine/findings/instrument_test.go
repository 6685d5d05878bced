package findings

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstrumentationRoundTrip(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := &Instrumentation{Package: "example.com/a", Problems: []Problem{{Pos: "a.go:1:1", File: "a.go", Line: 1, Col: 1, Message: "go statement calling a builtin is not instrumented"}},
		Files: HashFiles(root, []string{"a.go", "missing.go"})}
	if err := d.Save(root); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(d.Path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeInstrumentation(data, d.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Problems) != 1 || got.Problems[0] != d.Problems[0] || got.Files["a.go"] != Hash([]byte("package a\n")) || len(got.Files) != 1 {
		t.Fatalf("read back %+v, want %+v", got, d)
	}
	for _, bad := range []string{`{`, `{"format":"interleave-findings","version":1}`, `{"format":"interleave-instrument","version":9}`} {
		if _, err := DecodeInstrumentation([]byte(bad), "x"); err == nil {
			t.Errorf("DecodeInstrumentation(%s): no error", bad)
		} else if bad != "{" && !errors.Is(err, ErrFormat) {
			t.Errorf("DecodeInstrumentation(%s): %v, want ErrFormat", bad, err)
		}
	}
}

// Packages whose import paths flatten alike (a/b and a_b) keep a document each (their old file
// names were the same); a document under the old name is replaced when its own package's
// document is written again, while another package's save leaves it.
func TestInstrumentNamesDoNotCollide(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, filepath.FromSlash(InstrumentDir))
	for _, pkg := range []string{"m/a/b", "m/a_b"} {
		if err := (&Instrumentation{Package: pkg}).Save(root); err != nil {
			t.Fatal(err)
		}
	}
	read := func() map[string]int {
		t.Helper()
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			d, err := DecodeInstrumentation(data, path)
			if err != nil {
				t.Fatal(err)
			}
			got[d.Package]++
		}
		return got
	}
	if got := read(); len(got) != 2 || got["m/a/b"] != 1 || got["m/a_b"] != 1 {
		t.Fatalf("documents by package %v, want one for each of m/a/b and m/a_b", got)
	}

	// An earlier version's document of m/a/b, under the name both shared.
	legacy := legacyInstrumentPath(root, "m/a/b")
	if err := os.WriteFile(legacy, []byte(`{"format":"interleave-instrument","version":1,"package":"m/a/b","problems":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := (&Instrumentation{Package: "m/a_b"}).Save(root); err != nil { // another package: it stays
		t.Fatal(err)
	}
	if _, err := os.Stat(legacy); err != nil {
		t.Fatalf("another package's save removed the old document: %v", err)
	}
	if err := (&Instrumentation{Package: "m/a/b"}).Save(root); err != nil { // its own: replaced
		t.Fatal(err)
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Fatalf("the old document stays beside the new one: %v", err)
	}
	if got := read(); len(got) != 2 || got["m/a/b"] != 1 || got["m/a_b"] != 1 {
		t.Fatalf("documents by package %v, want one for each of m/a/b and m/a_b", got)
	}
}

func TestFileStem(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"example.com/mod/a/b", "example.com/mod/a_b"},
		{"m/a b", "m/a_b"},
		{"m/a", "m/A"},
	} {
		if FileStem(tc.a) == FileStem(tc.b) {
			t.Errorf("FileStem(%q) = FileStem(%q) = %q", tc.a, tc.b, FileStem(tc.a))
		}
	}
	if got, want := FileStem("example.com/mod/a/b"), "example.com_mod_a_b-"; !strings.HasPrefix(got, want) || len(got) != len(want)+8 {
		t.Errorf("FileStem = %q, want %q and 8 hex digits", got, want)
	}
}
