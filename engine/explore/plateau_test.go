package explore_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/explore"
)

// A default budget is not spent on nothing new: a test with one goroutine and no choice runs
// once, one that draws math/rand values a hundred times more than its last new interleaving,
// a small program until the last thousand executions showed nothing new; an explicit budget
// (Schedules, INTERLEAVE_SCHEDULES) is run whole.
func TestPlateau(t *testing.T) {
	sequential := func(t *explore.T) {
		m := map[int]int{}
		for i := 0; i < 10; i++ {
			m[i] = i
		}
	}
	drawsData := func(t *explore.T) {
		if engine.RandIntn(100, "p.go:1") < 0 {
			t.Errorf("negative")
		}
	}
	twoGoroutines := func(t *explore.T) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		n := 0
		for i := 0; i < 2; i++ {
			engine.WGAdd(&wg, 1, "p.go:2")
			engine.Go(func() {
				defer engine.WGDone(&wg, "p.go:3")
				engine.Lock(&mu, "p.go:4")
				n++
				engine.Unlock(&mu, "p.go:5")
			}, "p.go:6")
		}
		engine.WGWait(&wg, "p.go:7")
	}
	for _, tc := range []struct {
		name     string
		body     func(*explore.T)
		opts     []explore.Option
		env      string // INTERLEAVE_SCHEDULES
		stopped  string
		min, max int // schedules
		one      bool
	}{
		{"one goroutine", sequential, nil, "", "plateau", 1, 1, true},
		{"one goroutine, explicit budget", sequential, []explore.Option{explore.Schedules(50)}, "", "schedules", 50, 50, true},
		{"one goroutine, INTERLEAVE_SCHEDULES", sequential, nil, "50", "schedules", 50, 50, true},
		{"math/rand values", drawsData, nil, "", "plateau", engine.PlateauDataOnly + 1, engine.PlateauDataOnly + 1, true},
		// No time budget: the floor is the thousand whatever the machine's speed (a time
		// budget cuts it to what a twentieth of the budget holds, engine.PlateauMin at least).
		{"two goroutines, random walk", twoGoroutines, []explore.Option{explore.Strategy("random", nil), explore.Timeout(0)}, "", "plateau", engine.DefaultPlateau + 1, 2 * engine.DefaultPlateau, false},
		{"two goroutines, explicit budget", twoGoroutines, []explore.Option{explore.Strategy("random", nil), explore.Schedules(3000)}, "", "schedules", 3000, 3000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("INTERLEAVE_SCHEDULES", tc.env)
			}
			var events strings.Builder
			opts := append([]explore.Option{explore.EventLog(&events), explore.ScheduleDir(t.TempDir())}, tc.opts...)
			r, rep := exploreOn(t, "TestPlateau", tc.body, opts...)
			if len(r.errors) != 0 || rep == nil {
				t.Fatalf("errors %q", r.errors)
			}
			if rep.Stopped != tc.stopped || rep.Schedules < tc.min || rep.Schedules > tc.max || rep.Deterministic != tc.one {
				t.Errorf("stopped %q after %d schedules (one schedule: %v); want %q after %d to %d (%v)", rep.Stopped, rep.Schedules, rep.Deterministic, tc.stopped, tc.min, tc.max, tc.one)
			}
			var e explore.Event
			if err := json.Unmarshal([]byte(lastLine(events.String())), &e); err != nil {
				t.Fatalf("the result event: %v\n%s", err, events.String())
			}
			if tc.stopped == "plateau" && (e.Stopped != "plateau" || e.Plateau == 0 || e.OneSchedule != tc.one) {
				t.Errorf("result event %+v: want stopped at its plateau", e)
			}
		})
	}
}

// An exploration abandoned because an execution blocked outside the engine skips the test with
// the reason, and its result event says "limitation", not an error.
func TestAbandonedExplorationIsSkipped(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	var events strings.Builder
	r, _ := exploreOn(t, "TestHangs", func(t *explore.T) {
		engine.Gosched("h.go:1")
		<-release // not instrumented: blocked outside the engine
	}, explore.EventLog(&events), explore.ScheduleDir(t.TempDir()), explore.Watchdog(100*time.Millisecond), explore.Points(engine.PointsSync))
	if r.fatal || len(r.errors) != 0 || !strings.Contains(r.skipped, "abandoned after 1 schedule(s)") || !strings.Contains(r.skipped, "did not reach a scheduling point") {
		t.Fatalf("fatal=%v errors=%q skipped=%q: want the test skipped, abandoned", r.fatal, r.errors, r.skipped)
	}
	var e explore.Event
	if err := json.Unmarshal([]byte(lastLine(events.String())), &e); err != nil {
		t.Fatalf("the result event: %v\n%s", err, events.String())
	}
	if e.Stopped != "limitation" || e.Error != "" || len(e.Limitations) != 1 || e.Limitations[0].Kind != "watchdog" {
		t.Errorf("result event %+v: want stopped by the limitation, no error", e)
	}
}

// A claim of the whole schedule space is not made when executions were cut at the step bound
// or the program was seen to be nondeterministic.
func TestQualifyExhausted(t *testing.T) {
	const whole = "idb: all 10 schedules with ≤ 3 delays explored " + engine.WholeScheduleSpace
	for _, tc := range []struct {
		cut     int
		nondet  bool
		want    string
		notWant string
	}{
		{0, false, engine.WholeScheduleSpace, "not the whole"},
		{3, false, "not the whole schedule space: 3 execution(s) were cut at the step bound", "(the whole schedule space"},
		{0, true, "not the whole schedule space: the program was seen to be nondeterministic", "(the whole schedule space"},
	} {
		got := explore.QualifyExhausted(whole, tc.cut, tc.nondet)
		if !strings.Contains(got, tc.want) || strings.Contains(got, tc.notWant) {
			t.Errorf("QualifyExhausted(%d, %v) = %q, want %q and not %q", tc.cut, tc.nondet, got, tc.want, tc.notWant)
		}
		if again := explore.QualifyExhausted(got, tc.cut, tc.nondet); again != got {
			t.Errorf("not idempotent: %q then %q", got, again)
		}
	}
}

// lastLine is the last line of an event stream: the result.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
