package store_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine/store"
)

func TestScheduleDirCreatesIgnoredStore(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n"), 0o644)
	sub := filepath.Join(root, "a", "b")
	os.MkdirAll(sub, 0o755)
	dir, err := store.ScheduleDir(sub)
	if err != nil || dir != filepath.Join(root, ".interleave", "schedules") {
		t.Fatalf("dir %q, err %v", dir, err)
	}
	if b, err := os.ReadFile(filepath.Join(root, ".interleave", ".gitignore")); err != nil || !strings.Contains(string(b), "*") {
		t.Fatalf(".gitignore: %q %v", b, err)
	}
}
