package findings

import (
	"errors"
	"os"
	"path/filepath"
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
