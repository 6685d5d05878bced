package main

import (
	"strings"
	"testing"
)

// countingTest starts one goroutine or two, by the count of its executions kept in a file
// (state the scheduler does not control, as runtime.fastrand through a linkname is): the
// same schedule prefix meets another program from one execution to the next.
const countingTest = `package m

import (
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

func TestCounting(t *testing.T) {
	p := filepath.Join(os.Getenv("MARKER_DIR"), "count")
	b, _ := os.ReadFile(p)
	n, _ := strconv.Atoi(string(b))
	if err := os.WriteFile(p, []byte(strconv.Itoa(n+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i <= n%2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			mu.Unlock()
		}()
	}
	wg.Wait()
}
`

// A systematic strategy run alone that meets a nondeterministic test gives the portfolio's
// notice and random walks go on with the budget: the run passes (exit 0) with the notice,
// where it stopped with exit 2. One worker process: a part of a partitioned search may
// exhaust its share of the tree before it meets the nondeterminism.
func TestSystematicFallsBackOnNondeterminism(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := writeModule(t, map[string]string{"m_test.go": countingTest})
	env := []string{"MARKER_DIR=" + t.TempDir()}
	code, out, errOut := interleaveIn(t, dir, env, "test", "-json", "-minimize", "0", "-points", "all", "-strategy", "dfs", "-schedules", "50", "-p", "1", "-saved=false", ".")
	if code != 0 {
		t.Fatalf("interleave test -strategy dfs: exit %d, want 0\n%s\n%s", code, out, errOut)
	}
	e := finalEvent(t, out, "TestCounting")
	if e.Action != "pass" || e.Schedules == nil || *e.Schedules != 50 || !strings.Contains(e.Notice, "dfs left after") ||
		!strings.Contains(e.Notice, "random walks went on") || !strings.Contains(e.Notice, "the program is nondeterministic") {
		schedules := -1
		if e.Schedules != nil {
			schedules = *e.Schedules
		}
		t.Fatalf("TestCounting: %s after %d schedules, notice %q: want a pass after 50 schedules with dfs's notice\n%s", e.Action, schedules, e.Notice, errOut)
	}
}
