package keep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine/schedule"
)

func bugFile(g int32, msg string) *schedule.File {
	return &schedule.File{
		Test:  schedule.Test{Module: "example.com/m", Package: "example.com/m", Name: "TestA/sub one"},
		Bug:   &schedule.Bug{Kind: "deadlock", Message: msg, G: -1},
		Steps: []schedule.Step{{G: 0, Op: "go", Pos: "x.go:3"}, {G: g, Op: "lock", Pos: "x.go:4"}},
	}
}

// A kept schedule goes to testdata/interleave/<Test>/ under a name made of its kind and its
// decisions: the same decisions (another run's file, another message) are kept once, other
// decisions beside them.
func TestKeep(t *testing.T) {
	dir := t.TempDir()
	path, kept, err := Keep(bugFile(1, "first"), dir)
	if err != nil || !kept {
		t.Fatalf("Keep: %v, kept %v", err, kept)
	}
	if rel, _ := filepath.Rel(dir, path); !strings.HasPrefix(rel, filepath.Join("testdata", "interleave", "TestA_sub_one", "deadlock-")) || !strings.HasSuffix(rel, ".json") {
		t.Errorf("kept as %s", rel)
	}
	if f, err := schedule.Load(path); err != nil || f.Bug.Message != "first" {
		t.Fatalf("the kept file: %+v, %v", f, err)
	}
	if again, kept, err := Keep(bugFile(1, "second run"), dir); err != nil || kept || again != path {
		t.Errorf("the same decisions again: %s, kept %v, %v", again, kept, err)
	}
	if other, kept, err := Keep(bugFile(0, "first"), dir); err != nil || !kept || other == path {
		t.Errorf("other decisions: %s, kept %v, %v", other, kept, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 2 {
		t.Errorf("corpus holds %d files, want 2", len(entries))
	}
}
