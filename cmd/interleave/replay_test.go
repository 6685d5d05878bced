package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine/schedule"
)

// tally is a package whose bug a schedule records: Add adds the wrong amount (a fix changes
// no scheduling point), and Take checks and updates in two critical sections (a fix changes
// them).
const tally = `package m

import "sync"

var mu sync.Mutex

func Add(n *int) {
	mu.Lock()
	*n += 2
	mu.Unlock()
}
`

const tallyTest = `package m

import (
	"sync"
	"testing"
)

func TestAdd(t *testing.T) {
	n := 0
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			Add(&n)
		}()
	}
	wg.Wait()
	if n != 2 {
		t.Fatalf("n = %d, want 2", n)
	}
}
`

// A schedule identifies the code it was recorded by from the module-relative sources: it
// replays without a word after the module moves; after the code changes it is replayed
// anyway, with a notice, and either reproduces its bug, passes (the bug was fixed), or stops
// at the first step where the changed code does something else, naming it; -strict refuses.
func TestScheduleReplaysAfterMoveAndChange(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	if runtime.GOOS == "windows" {
		t.Skip("uses /dev/fd")
	}
	dir := writeModule(t, map[string]string{"tally.go": tally, "tally_test.go": tallyTest})
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-json", "-minimize", "0", "-points", "sync", ".")
	if code != 1 {
		t.Fatalf("interleave test: exit %d\n%s\n%s", code, out, errOut)
	}
	recorded := finalEvent(t, out, "TestAdd").Bug.Schedule
	f, err := schedule.Load(recorded)
	if err != nil || !strings.HasPrefix(f.Test.Build, "src-") {
		t.Fatalf("schedule %s: build %q, %v", recorded, f.Test.Build, err)
	}

	// The module moves: the same sources, the same identity, no notice.
	moved := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.CopyFS(moved, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	movedSchedule := filepath.Join(moved, ".interleave", "schedules", filepath.Base(recorded))
	code, out, errOut = interleaveIn(t, moved, nil, "replay", movedSchedule)
	if code != 1 || !strings.Contains(out, "fail found by replay") || strings.Contains(errOut, "build") {
		t.Fatalf("replay after a move: exit %d, want 1 and no notice\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(moved, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		source  string // tally.go
		args    []string
		code    int
		stdout  string // in stdout
		stderr  []string
		replace bool
	}{
		{"a comment added: the bug again, with a notice", tally + "\n// Add adds one.\n", nil, 1, "fail found by replay",
			[]string{"was recorded by build", "replaying it anyway"}, false},
		{"-strict refuses other code", tally + "\n// Add adds one.\n", []string{"-strict"}, 2, "",
			[]string{"was recorded by build"}, false},
		{"the bug fixed: the schedule passes", strings.Replace(tally, "*n += 2", "*n += 1", 1), nil, 0, "the schedule passes",
			[]string{"replaying it anyway", "the fail the schedule recorded no longer happens under it"}, false},
		{"the locking changed: the first divergence, named", strings.Replace(tally, "\tmu.Lock()\n\t*n += 2\n\tmu.Unlock()\n", "\t*n += 1\n", 1), nil, 2, "",
			[]string{"the source changed since the schedule was saved: at step", "lines of the schedule changed or removed since: tally.go:"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			write("tally.go", tc.source)
			args := append(append([]string{"replay"}, tc.args...), movedSchedule)
			code, out, errOut := interleaveIn(t, moved, nil, args...)
			if code != tc.code || !strings.Contains(out, tc.stdout) {
				t.Fatalf("exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", code, tc.code, tc.stdout, out, errOut)
			}
			for _, want := range tc.stderr {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errOut)
				}
			}
		})
	}
}
