package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine/schedule"
)

// The lost update of counterModule is in the module example.com/counter, which only
// -instrument example.com/counter puts under control: without it Inc is one step.
const counterModuleTest = `package m

import (
	"sync"
	"testing"

	"example.com/counter"
)

func TestCounter(t *testing.T) {
	var c counter.Counter
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Inc()
		}()
	}
	wg.Wait()
	if n := c.Get(); n != 2 {
		t.Fatalf("n = %d, want 2", n)
	}
}
`

const counterModule = `package counter

// Counter counts, without synchronization.
type Counter struct{ n int }

func (c *Counter) Inc() {
	v := c.n
	c.n = v + 1
}

func (c *Counter) Get() int { return c.n }
`

// A schedule records the flags its test was built with, and interleave replay builds the test
// with them: a bug found with -instrument example.com/counter replays without the flag.
func TestReplayBuildsAsFound(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := writeModule(t, map[string]string{
		"m_test.go":          counterModuleTest,
		"counter/counter.go": counterModule,
		"counter/go.mod":     "module example.com/counter\n\ngo 1.22\n",
	})
	gomod := "module example.com/m\n\ngo 1.22\n\nrequire example.com/counter v0.0.0\n\nreplace example.com/counter => ./counter\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-json", "-minimize", "0", "-points", "all", "-tags", "netgo", "-instrument", "example.com/counter", ".")
	if code != 1 {
		t.Fatalf("interleave test -instrument example.com/counter: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	final := finalEvent(t, out, "TestCounter")
	if final.Bug == nil || final.Bug.Schedule == "" {
		t.Fatalf("TestCounter: %+v: want a bug with its schedule", final)
	}
	f, err := schedule.Load(final.Bug.Schedule)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.Instrument, []string{"example.com/counter"}) || !slices.Equal(f.BuildFlags, []string{"-tags=netgo"}) {
		t.Errorf("the schedule records instrument %q and build flags %q, want [example.com/counter] and [-tags=netgo]", f.Instrument, f.BuildFlags)
	}
	code, out, errOut = interleaveIn(t, dir, nil, "replay", final.Bug.Schedule)
	if code != 1 || !strings.Contains(out, "fail found by replay") || !strings.Contains(out, "n = 1, want 2") {
		t.Fatalf("replay: exit %d, want 1 with the bug again\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// interleave verify builds the test as its saved schedules were found too: built without
	// the module, the schedule diverged where it entered Inc, and no fresh schedule could find
	// the lost update (Inc was one step), so the verdict was "changed", exit 0.
	code, out, errOut = interleaveIn(t, dir, nil, "verify", "-json", "-schedules", "100", ".")
	if code != 1 || !strings.Contains(out, `"Verdict":"still fails"`) || !strings.Contains(out, `"Outcome":"fails"`) {
		t.Fatalf("verify: exit %d, want 1 with the saved schedule failing again\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
