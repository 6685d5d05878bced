package merge

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine/findings"
)

// TestMergeFailureLeavesNoOutput: a merge that fails while it writes leaves no partial store
// — none at all when there was none, the previous one as it was when there was one — and no
// temporary directory.
func TestMergeFailureLeavesNoOutput(t *testing.T) {
	for _, step := range []string{"schedules", "findings", "runs"} {
		for _, existing := range []bool{false, true} {
			name := step
			if existing {
				name += " into an existing store"
			}
			t.Run(name, func(t *testing.T) {
				target := t.TempDir()
				if existing {
					if _, _, err := runMerge(t, target, shardStore(t, 1, "/runner/1")); err != nil {
						t.Fatal(err)
					}
				}
				before := snapshot(t, target)
				stagedHook = func(s string) error {
					if s == step {
						return errors.New("disk full")
					}
					return nil
				}
				defer func() { stagedHook = nil }()
				_, _, err := runMerge(t, target, shardStore(t, 2, "/runner/2"), shardStore(t, 3, "/runner/3"))
				if err == nil || !strings.Contains(err.Error(), "disk full") {
					t.Fatalf("merge: %v, want the failure", err)
				}
				after := snapshot(t, target)
				if len(after) != len(before) {
					t.Errorf("the failed merge changed the target: %d files before, %d after", len(before), len(after))
				}
				for p, c := range before {
					if after[p] != c {
						t.Errorf("the failed merge changed %s", p)
					}
				}
				if left, _ := filepath.Glob(filepath.Join(target, findings.StoreDir+".merge-*")); len(left) > 0 {
					t.Errorf("the failed merge left %v", left)
				}
			})
		}
	}
}
