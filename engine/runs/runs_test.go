package runs

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine/explore"
)

// TestSaveLoad: a summary saved into the runs directory Dir makes (and the store with it)
// reads back the same; a document of another version is refused, naming it.
func TestSaveLoad(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir, err := Dir(filepath.Join(root))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, ".interleave", "runs"); dir != want {
		t.Fatalf("Dir = %s, want %s", dir, want)
	}
	doc := &Summary{Version: 1, Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Origin: "interleave dap", Packages: []string{"example.com/m"},
		Run: "^TestX$", Strategy: "pct", Schedules: 10, Seed: 1,
		Tests: []Outcome{{Package: "example.com/m", Test: "TestX", Result: &explore.Event{Event: "result", Test: "TestX", Schedules: 10, Races: 1}}}}
	path, err := doc.Save(dir)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(path) != "20260102T030405.000.json" {
		t.Errorf("saved as %s", path)
	}
	got, err := LoadSummary(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Origin != doc.Origin || len(got.Tests) != 1 || got.Tests[0].Result.Races != 1 || !got.Time.Equal(doc.Time) {
		t.Errorf("read back %+v", got)
	}
	for _, bad := range []string{`{"Version": 2}`, `not json`} {
		if _, err := DecodeSummary([]byte(bad), "x.json"); err == nil {
			t.Errorf("DecodeSummary(%q): no error", bad)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("runs directory holds %d entries, want the summary alone (no temporary file)", len(entries))
	}
}
