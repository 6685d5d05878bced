package explore_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/report"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// recorder is a testing.TB that records failures instead of failing the real test.
type recorder struct {
	testing.TB
	name    string
	errors  []string
	fatal   bool
	skipped string // Skipf's message
}

func (r *recorder) Name() string { return r.name }
func (r *recorder) Helper()      {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.fatal = true
	runtime.Goexit()
}
func (r *recorder) Logf(string, ...any) {}
func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// explore runs explore.Explore on a recorder, in a goroutine so that Fatalf can stop it.
func exploreOn(t *testing.T, name string, body func(*explore.T), opts ...explore.Option) (*recorder, *explore.Report) {
	r := &recorder{TB: t, name: name}
	var rep *explore.Report
	done := make(chan struct{})
	go func() {
		defer close(done)
		rep = explore.Test(r, body, opts...)
	}()
	<-done
	return r, rep
}

func lostUpdate(t *explore.T) {
	var n int
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		engine.WGAdd(&wg, 1, "lost.go:1")
		engine.Go(func() {
			defer engine.WGDone(&wg, "lost.go:2")
			engine.Read(unsafe.Pointer(&n), "lost.go:3")
			v := n
			engine.Write(unsafe.Pointer(&n), "lost.go:4")
			n = v + 1
		}, "lost.go:5")
	}
	engine.WGWait(&wg, "lost.go:6")
	if n != 2 {
		t.Fatalf("n = %d, want 2", n)
	}
}

func TestExploreFailsTestWithScheduleThatReplays(t *testing.T) {
	dir := t.TempDir()
	r, rep := exploreOn(t, "TestLostUpdate", lostUpdate, explore.ScheduleDir(dir))
	if rep == nil || rep.First == nil || len(r.errors) != 1 {
		t.Fatalf("report %+v, errors %q", rep, r.errors)
	}
	msg := r.errors[0]
	for _, want := range []string{"fail found by pct", "n = 1, want 2", "schedule: ", "INTERLEAVE_REPLAY="} {
		if !strings.Contains(msg, want) {
			t.Errorf("failure lacks %q:\n%s", want, msg)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("schedule files: %v", files)
	}
	// The file replays to the same bug, and is refused by another test.
	r2, rep2 := exploreOn(t, "TestLostUpdate", lostUpdate, explore.Replay(files[0]))
	if r2.fatal || len(r2.errors) != 1 || rep2.First.Bug.Step != rep.First.Bug.Step {
		t.Fatalf("replay: fatal=%v errors=%q", r2.fatal, r2.errors)
	}
	r3, _ := exploreOn(t, "TestOther", lostUpdate, explore.Replay(files[0]))
	if !r3.fatal || !strings.Contains(r3.errors[0], "is for test TestLostUpdate") {
		t.Fatalf("other test: %q", r3.errors)
	}
}

func TestExplorePassesCorrectProgram(t *testing.T) {
	r, rep := exploreOn(t, "TestOK", func(t *explore.T) {
		var mu sync.Mutex
		var n int
		var wg sync.WaitGroup
		for i := 0; i < 2; i++ {
			engine.WGAdd(&wg, 1, "ok.go:1")
			engine.Go(func() {
				defer engine.WGDone(&wg, "ok.go:2")
				engine.Lock(&mu, "ok.go:3")
				n++
				engine.Unlock(&mu, "ok.go:4")
			}, "ok.go:5")
		}
		engine.WGWait(&wg, "ok.go:6")
		if n != 2 {
			t.Errorf("n = %d", n)
		}
	}, explore.Strategy("dfs", nil))
	if len(r.errors) != 0 || rep.Stopped != "exhausted" || !strings.Contains(report.Summary(rep), "all ") {
		t.Fatalf("errors %q, report %+v", r.errors, rep)
	}
}

func TestEnvironmentOverrides(t *testing.T) {
	t.Setenv("INTERLEAVE_STRATEGY", "random")
	t.Setenv("INTERLEAVE_SCHEDULES", "7")
	r, rep := exploreOn(t, "TestEnv", func(t *explore.T) {}, explore.Strategy("dfs", nil))
	if len(r.errors) != 0 || rep.Strategy != "random" || rep.Schedules != 7 {
		t.Fatalf("errors %q, report %+v", r.errors, rep)
	}
	t.Setenv("INTERLEAVE_STRATEGY", "nosuch")
	r, _ = exploreOn(t, "TestEnv", func(t *explore.T) {})
	if !r.fatal || !strings.Contains(r.errors[0], `unknown strategy "nosuch"`) {
		t.Fatalf("errors %q", r.errors)
	}
}

// A bug found before an execution is abandoned by the watchdog (-keep-going) is reported, not
// replaced by the limitation.
func TestAbandonedExecutionHidesNoBug(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	runs := 0
	r, rep := exploreOn(t, "TestFailsThenHangs", func(t *explore.T) {
		runs++
		engine.Gosched("h.go:1")
		if runs == 1 {
			t.Errorf("first run fails")
			return
		}
		<-release // not instrumented: blocked outside the engine
	}, explore.ScheduleDir(t.TempDir()), explore.KeepGoing(), explore.Watchdog(100*time.Millisecond), explore.Strategy("random", nil), explore.Minimize(0), explore.Points(engine.PointsSync),
		explore.Plateau(false)) // one goroutine, no choice: explored once, it would not run again
	if r.fatal || rep == nil || rep.First == nil || rep.Stopped != "limitation" || len(r.errors) != 1 || !strings.Contains(r.errors[0], "first run fails") {
		t.Fatalf("fatal=%v errors=%q report=%+v: want the first run's bug reported", r.fatal, r.errors, rep)
	}
}

// A failure of an execution that counted allocations is a notice, not a bug: the
// instrumentation allocates where the program does not.
func TestAllocationCountingFailureIsANotice(t *testing.T) {
	var events strings.Builder
	r, rep := exploreOn(t, "TestAllocs", func(t *explore.T) {
		var m runtime.MemStats
		engine.ReadMemStats(&m, "a.go:1")
		before := m.Mallocs
		engine.ReadMemStats(&m, "a.go:2")
		if m.Mallocs-before > 100 {
			return
		}
		t.Errorf("allocations counted: %d", m.Mallocs-before)
	}, explore.ScheduleDir(t.TempDir()), explore.EventLog(&events), explore.Minimize(0), explore.Points(engine.PointsSync))
	if r.fatal || len(r.errors) != 0 || rep.First != nil {
		t.Fatalf("errors %q, bug %v: want a notice", r.errors, rep.First)
	}
	if !strings.Contains(events.String(), "counted allocations") {
		t.Errorf("events lack the notice:\n%s", events.String())
	}
}

// A minimized schedule keeps its name, and the schedule as found is kept beside it as
// ….found.json: both are whole schedule files of the bug.
func TestMinimizedScheduleKeepsFoundBeside(t *testing.T) {
	dir := t.TempDir()
	r, rep := exploreOn(t, "TestLostUpdate", lostUpdate, explore.ScheduleDir(dir), explore.Strategy("random", nil), explore.Seed(3),
		explore.Minimize(time.Minute), explore.Points(engine.PointsAll))
	if rep == nil || rep.First == nil || len(r.errors) != 1 {
		t.Fatalf("report %+v, errors %q", rep, r.errors)
	}
	found, _ := filepath.Glob(filepath.Join(dir, "*.found.json"))
	all, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(found) != 1 || len(all) != 2 {
		t.Fatalf("schedule files %v: want the minimized schedule and the one as found", all)
	}
	minimized := strings.TrimSuffix(found[0], ".found.json") + ".json"
	a, errA := schedule.Load(found[0])
	b, errB := schedule.Load(minimized)
	if errA != nil || errB != nil || a.Bug == nil || b.Bug == nil || b.Result.Preemptions >= a.Result.Preemptions {
		t.Fatalf("as found %v (%v), minimized %v (%v): want two schedules of the bug, the minimized with fewer preemptions", a, errA, b, errB)
	}
}
