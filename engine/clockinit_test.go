package engine_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
)

// initAt is a reading of the clock in the package's initialization, as var start = time.Now()
// is once instrumented.
var initAt = engine.Now()

// warmCount is a pool that counts the tasks it runs only once it has been up for 100µs since
// initAt, without a lock: tasks run at once may be counted once. The bug depends on the time;
// its message says when it was seen.
func warmCount(t *engine.T) {
	var done int
	var wg sync.WaitGroup
	for range 2 {
		engine.WGAdd(&wg, 1, "w.go:1")
		engine.Go(func() {
			if engine.Since(initAt) >= 100*time.Microsecond {
				engine.Read(unsafe.Pointer(&done), "w.go:3")
				n := done
				engine.Write(unsafe.Pointer(&done), "w.go:4")
				done = n + 1
			}
			engine.WGDone(&wg, "w.go:5")
		}, "w.go:2")
	}
	engine.WGWait(&wg, "w.go:6")
	if done != 2 {
		t.Errorf("%d task(s) counted at an uptime of %v, want 2", done, engine.Since(initAt))
	}
}

// TestClockReadingsOutsideExecutions: readings of the clock in a package's initialization
// and between executions are on the executions' timeline — before every execution, a
// millisecond or less before it starts, never after — and the same in every process of the
// test binary, so that a bug that depends on the time replays in a fresh process with the same
// times. They were the real clock's, 26 years after the executions' virtual one: the uptime
// an execution measured from initAt was −26 years, and differed from process to process.
func TestClockReadingsOutsideExecutions(t *testing.T) {
	if os.Getenv("INTERLEAVE_TEST_CLOCK_CHILD") != "" {
		rep := engine.Explore(warmCount, engine.Config{Strategy: randomStrategy(4), Schedules: 200})
		fmt.Printf("init %d\nbug %v\n", initAt.UnixNano(), bugOf(rep))
		return
	}
	before := engine.Now()
	if !initAt.Before(before) || !before.Before(engine.Epoch) || engine.Epoch.Sub(initAt) > time.Millisecond {
		t.Errorf("init at %v, then %v, executions start at %v: want both in the millisecond before, in that order", initAt, before, engine.Epoch)
	}
	var uptimes []time.Duration
	body := func(t *engine.T) {
		engine.Go(func() { engine.Sleep(time.Millisecond, "u.go:2") }, "u.go:1")
		engine.Gosched("u.go:3")
		uptimes = append(uptimes, engine.Since(initAt), engine.Since(before))
	}
	rep := engine.Explore(body, engine.Config{Strategy: randomStrategy(3), Schedules: 20})
	if rep.First != nil || len(uptimes) != 40 {
		t.Fatalf("bug %v, %d readings", bugOf(rep), len(uptimes))
	}
	for _, u := range uptimes {
		if u <= 0 || u > time.Millisecond+time.Microsecond {
			t.Fatalf("uptimes %v: want each above 0 and about a millisecond at most", uptimes)
		}
	}
	if after := engine.Now(); !after.After(before) || !after.Before(engine.Epoch) {
		t.Errorf("a reading after the executions is at %v, after %v: want it later, and still before %v", after, before, engine.Epoch)
	}
	// A sleep outside an execution (a TestMain waiting for a server) moves the clock as long.
	slept := engine.Now()
	engine.Sleep(10*time.Microsecond, "o.go:1")
	if d := engine.Since(slept); d < 10*time.Microsecond || d > 11*time.Microsecond {
		t.Errorf("a sleep of 10µs outside an execution: the clock moved %v", d)
	}

	// The bug, here and in a fresh process of this test binary.
	rep = engine.Explore(warmCount, engine.Config{Strategy: randomStrategy(4), Schedules: 200})
	if rep.First == nil || !strings.Contains(rep.First.Bug.Message, "1 task(s) counted at an uptime of 1.") {
		t.Fatalf("bug %v: want one task counted after a millisecond of uptime", bugOf(rep))
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestClockReadingsOutsideExecutions$", "-test.count=1")
	cmd.Env = append(os.Environ(), "INTERLEAVE_TEST_CLOCK_CHILD=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the fresh process: %v\n%s", err, out)
	}
	want := fmt.Sprintf("init %d\nbug %v\n", initAt.UnixNano(), rep.First.Bug)
	if !strings.HasPrefix(string(out), want) {
		t.Errorf("the fresh process printed:\n%s\nwant:\n%s", out, want)
	}
}
