package instrument

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Command returns a command for a child process of the tool — the go command, a test
// binary — that does not outlive it: it runs in a process group of its own, so that stopping
// it stops everything it started (its process tree on Windows), and on Linux the kernel kills
// it when the tool dies, even by kill -9 (see child_linux.go). ctx cancels it as exec.CommandContext does.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	dieWithParent(cmd)
	return cmd
}

// KillTree kills a child started from Command and everything it started: its process group
// on Unix, its process tree (its descendants by parent id) on Windows. cmd must have started.
func KillTree(cmd *exec.Cmd) error {
	return killTree(cmd)
}

// ProcessAlive reports whether the process pid exists (and, on Windows, has not exited).
func ProcessAlive(pid int) bool {
	return processAlive(pid)
}

// WorkDir creates a temporary directory for one run of the tool, named prefix-PID-..., and
// removes the directories of earlier runs that died without removing theirs (a process killed
// by kill -9 cannot clean up): those whose process no longer exists.
func WorkDir(prefix string) (string, error) {
	removeStale(os.TempDir(), prefix)
	dir, err := os.MkdirTemp("", prefix+"-"+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", fmt.Errorf("work directory: %w", err)
	}
	return dir, nil
}

// removeStale removes the directories prefix-PID-* under tmp whose process PID is gone and
// that belong to this user.
func removeStale(tmp, prefix string) {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix+"-")
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		if fi, err := os.Lstat(dir); err != nil || checkOwner(fi) != nil {
			continue
		}
		os.RemoveAll(dir)
	}
}
