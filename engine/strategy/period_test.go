package strategy_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// periodOnceLock is the pthread mutex of seed 003's Figure 1, allocated by main and released by the
// last thread out. released stands for free(): using it afterwards is a use after free.
type periodOnceLock struct {
	mu       sync.Mutex
	released bool
}

// periodOnce is seed 003's motivating example (Figure 1, simplified from CVE-2016-1972): two
// threads call once(), synchronized by lock, done and waiters; the last thread out should
// release the lock. Every statement but return is a key point (§2.1), one scheduling point
// each; a statement that dereferences lock reads the pointer first. Its three bugs are Go
// panics: the null pointer dereference is the runtime's own, the use after free and the
// double free are assertions on the released flag.
func periodOnce(t *engine.T) {
	var lock *periodOnceLock
	var waiters int64
	var done int
	use := func(l *periodOnceLock, what string) {
		if l.released { // a nil l is the runtime's nil pointer dereference: the NPD
			panic("use after free: " + what + " of a released lock")
		}
	}
	once := func() {
		engine.Read(unsafe.Pointer(&done), "7: if (done)")
		if done != 0 {
			return
		}
		engine.Write(unsafe.Pointer(&waiters), "8: waiters++")
		waiters++
		engine.Read(unsafe.Pointer(&lock), "9: pthread_mutex_lock(lock)")
		l := lock
		use(l, "pthread_mutex_lock")
		engine.Lock(&l.mu, "9: pthread_mutex_lock(lock)")
		use(l, "pthread_mutex_lock")
		// do some thing ...
		engine.Read(unsafe.Pointer(&done), "11: if (!done)")
		if done == 0 {
			engine.Write(unsafe.Pointer(&done), "12: done = 1")
			done = 1
		}
		engine.Read(unsafe.Pointer(&lock), "14: pthread_mutex_unlock(lock)")
		l = lock
		use(l, "pthread_mutex_unlock")
		engine.Unlock(&l.mu, "14: pthread_mutex_unlock(lock)")
		engine.Write(unsafe.Pointer(&waiters), "15: if (!--waiters)")
		waiters--
		if waiters == 0 {
			engine.Write(unsafe.Pointer(&lock), "16: free(lock)")
			if l := lock; l != nil { // free(NULL) does nothing
				if l.released {
					panic("double free: lock released twice")
				}
				l.released = true
			}
			engine.Write(unsafe.Pointer(&lock), "17: lock = NULL")
			lock = nil
		}
	}
	lock = &periodOnceLock{} // 20: lock = malloc(sizeof(pthread_mutex_t))
	var wg sync.WaitGroup
	engine.WGGo(&wg, once, "22: pthread_create(&t0, NULL, once, NULL)")
	engine.WGGo(&wg, once, "23: pthread_create(&t1, NULL, once, NULL)")
	engine.WGWait(&wg, "24: pthread_join")
}

// periodBugKind classifies the three bugs of periodOnce.
func periodBugKind(b *engine.Bug) string {
	switch {
	case b == nil:
		return ""
	case strings.Contains(b.Message, "nil pointer dereference"):
		return "NPD"
	case strings.Contains(b.Message, "use after free"):
		return "UAF"
	case strings.Contains(b.Message, "double free"):
		return "DF"
	}
	return "other: " + b.Message
}

// periodFirstBugs explores body under s, going on after bugs, and returns the first execution
// (from 1) and PERIOD schedule of each kind of bug.
func periodFirstBugs(t *testing.T, body func(*engine.T), s *strategy.Period, limit int) (map[string]int, map[string]string, *engine.Report) {
	t.Helper()
	at, sch := map[string]int{}, map[string]string{}
	rep := engine.Explore(body, engine.Config{
		Strategy:  s,
		KeepGoing: true,
		Schedules: limit,
		MaxSteps:  10_000,
		OnExecution: func(n int, r *engine.Result) {
			if k := periodBugKind(r.Bug); k != "" {
				if _, ok := at[k]; !ok {
					at[k], sch[k] = n, s.Schedule()
				}
			}
		},
	})
	if rep.Err != nil || len(rep.Limitations) > 0 {
		t.Fatalf("exploration failed: %v %v", rep.Err, rep.Limitations)
	}
	return at, sch, rep
}

// TestPeriodFindsOnceBugs is §2.2: with the period bound 6, PERIOD finds the NPD, the UAF and
// the double free of the motivating example, in both modes. With two threads the parallel
// scheduler's space is the serialized one (§4.2) plus, per slice, the 1-period schedule.
func TestPeriodFindsOnceBugs(t *testing.T) {
	for _, mode := range []string{strategy.PeriodParallel, strategy.PeriodSerial} {
		t.Run(mode, func(t *testing.T) {
			s, err := strategy.NewPeriod(mode, 6)
			if err != nil {
				t.Fatal(err)
			}
			at, sch, rep := periodFirstBugs(t, periodOnce, s, 100_000)
			for _, k := range []string{"NPD", "UAF", "DF"} {
				if _, ok := at[k]; !ok {
					t.Errorf("%s not found", k)
					continue
				}
				t.Logf("%s first at schedule %d: %s", k, at[k], sch[k])
			}
			for k := range at {
				if strings.HasPrefix(k, "other") {
					t.Errorf("unexpected bug %s", k)
				}
			}
			if rep.Stopped != "exhausted" {
				t.Errorf("stopped: %s, want exhausted", rep.Stopped)
			}
			exec, skipped := s.Schedules()
			t.Logf("%d schedules (%d buggy), %d generated again for another slice and skipped, %d slices; %s", rep.Schedules, rep.Buggy, skipped, s.Jobs(), rep.Exhausted)
			if exec != rep.Schedules {
				t.Errorf("strategy counted %d executions, the explorer %d", exec, rep.Schedules)
			}
		})
	}
}

// periodReorder returns SCTBench's CS.reorder_X_bad (the setter/checker program of seed 003's
// Figure 4): main starts setters setter threads, each setting a = 1 then b = -1, and checkers
// checker threads, each asserting !((a == 0 && b == 0) || (a == 1 && b == -1)) is false, with
// C's short-circuit evaluation: every read of a or b is a key point.
func periodReorder(setters, checkers int) func(*engine.T) {
	return func(t *engine.T) {
		var a, b int
		var wg sync.WaitGroup
		set := func() {
			engine.Write(unsafe.Pointer(&a), "a = 1")
			a = 1
			engine.Write(unsafe.Pointer(&b), "b = -1")
			b = -1
		}
		check := func() {
			ra := func() int { engine.Read(unsafe.Pointer(&a), "read a"); return a }
			rb := func() int { engine.Read(unsafe.Pointer(&b), "read b"); return b }
			if !((ra() == 0 && rb() == 0) || (ra() == 1 && rb() == -1)) {
				panic(fmt.Sprintf("assertion failed: Bug found! a=%d b=%d", a, b))
			}
		}
		for range setters {
			engine.WGGo(&wg, set, "create setThread")
		}
		for range checkers {
			engine.WGGo(&wg, check, "create checkThread")
		}
		engine.WGWait(&wg, "join")
	}
}

// TestPeriodReorder10 is §4.2's case study: the parallel scheduler triggers CS.reorder_10_bad's
// assertion within 3 periods (Figure 4: a setter sets a, the checker checks, the rest runs in
// the last period); the serialized scheduler cannot, since it needs a period per thread.
func TestPeriodReorder10(t *testing.T) {
	tests := []struct {
		mode  string
		found bool
	}{
		{strategy.PeriodParallel, true},
		{strategy.PeriodSerial, false},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			s, err := strategy.NewPeriod(tt.mode, 3)
			if err != nil {
				t.Fatal(err)
			}
			at, sch, rep := periodFirstBugs(t, periodReorder(9, 1), s, 100_000)
			found := false
			for k, n := range at {
				if strings.Contains(k, "Bug found") {
					found = true
					t.Logf("assertion first at schedule %d: %s", n, sch[k])
				}
			}
			if found != tt.found {
				t.Errorf("found = %v, want %v", found, tt.found)
			}
			t.Logf("%d schedules (%d buggy), %d slices; %s", rep.Schedules, rep.Buggy, s.Jobs(), rep.Exhausted)
		})
	}
}

// TestPeriodReorderSpace prints the schedule counts of both schedulers on CS.reorder_X_bad
// for growing thread numbers (§4.2 compares them), and checks that every exploration is
// exhausted and reproducible: the same strategy parameters give the same schedules.
func TestPeriodReorderSpace(t *testing.T) {
	tests := []struct {
		setters, checkers int
	}{{2, 1}, {3, 1}, {4, 1}}
	for _, tt := range tests {
		for _, mode := range []string{strategy.PeriodParallel, strategy.PeriodSerial} {
			var runs [2][]string
			var reps [2]*engine.Report
			for i := range runs {
				s, _ := strategy.NewPeriod(mode, 3)
				reps[i] = engine.Explore(periodReorder(tt.setters, tt.checkers), engine.Config{
					Strategy: s, KeepGoing: true, Schedules: 100_000,
					OnExecution: func(int, *engine.Result) { runs[i] = append(runs[i], s.Schedule()) },
				})
			}
			if fmt.Sprint(runs[0]) != fmt.Sprint(runs[1]) {
				t.Errorf("%s: two explorations differ", mode)
			}
			if reps[0].Stopped != "exhausted" {
				t.Errorf("%s: stopped %s", mode, reps[0].Stopped)
			}
			t.Logf("reorder %d+%d threads, %s, P=3: %d schedules, %d buggy, first bug at %d", tt.setters, tt.checkers, mode, reps[0].Schedules, reps[0].Buggy, reps[0].FirstAt)
		}
	}
}

// TestPeriodExhaustsStraightLine checks Algorithm 1 on a program without branches, two
// workers of two key points: the dry run; the initial job (1, 1), whose 2-period schedules
// [t0][t1] and [t1][t0] each reveal the slice (2, 2) (the second time, the job's prefix becomes
// the common one, empty); then the 6 schedules of (2, 2) with 2, 3 and 4 periods, every
// interleaving once; then no job is left.
func TestPeriodExhaustsStraightLine(t *testing.T) {
	s, err := strategy.NewPeriod(strategy.PeriodSerial, 8)
	if err != nil {
		t.Fatal(err)
	}
	var schedules []string
	rep := engine.Explore(straightLine(2, 2), engine.Config{
		Strategy: s, KeepGoing: true, Record: true,
		OnExecution: func(n int, r *engine.Result) {
			var ls []string
			for _, st := range r.Schedule {
				ls = append(ls, st.Pos)
			}
			schedules = append(schedules, s.Schedule()+" "+strings.Join(ls, " "))
		},
	})
	want := []string{
		" go 0.0 0.1 1.0 1.1", // the dry run
		"[t0][t1] go 0.0 0.1 1.0 1.1",
		"[t1][t0] go 1.0 1.1 0.0 0.1",
		"[t0×2][t1×2] go 0.0 0.1 1.0 1.1",
		"[t1×2][t0×2] go 1.0 1.1 0.0 0.1",
		"[t0][t1×2][t0] go 0.0 1.0 1.1 0.1",
		"[t1][t0×2][t1] go 1.0 0.0 0.1 1.1",
		"[t0][t1][t0][t1] go 0.0 1.0 0.1 1.1",
		"[t1][t0][t1][t0] go 1.0 0.0 1.1 0.1",
	}
	if strings.Join(schedules, "\n") != strings.Join(want, "\n") {
		t.Errorf("schedules:\n%s\nwant\n%s", strings.Join(schedules, "\n"), strings.Join(want, "\n"))
	}
	if rep.Stopped != "exhausted" || rep.Exhausted != "all 9 schedules explored: every slice's schedule space is exhausted within 4 periods (2 slices)" {
		t.Errorf("stopped %s: %s", rep.Stopped, rep.Exhausted)
	}
	t.Logf("%s", rep.Exhausted)
}

// TestPeriodParams checks the constructor's validation and the recorded parameters.
func TestPeriodParams(t *testing.T) {
	tests := []struct {
		mode    string
		periods int
		ok      bool
	}{
		{strategy.PeriodParallel, 3, true}, {strategy.PeriodSerial, 1, true},
		{"other", 3, false}, {strategy.PeriodParallel, 0, false},
	}
	for _, tt := range tests {
		s, err := strategy.NewPeriod(tt.mode, tt.periods)
		if (err == nil) != tt.ok {
			t.Errorf("NewPeriod(%q, %d): err = %v", tt.mode, tt.periods, err)
			continue
		}
		if err == nil {
			p := s.Params()
			if p["mode"] != tt.mode || p["periods"] != fmt.Sprint(tt.periods) {
				t.Errorf("Params = %v", p)
			}
		}
	}
}

// periodLockOrder is a lock-order inversion: G1 locks a then b, G2 b then a.
func periodLockOrder(t *engine.T) {
	var a, b sync.Mutex
	engine.GoAll([]func(){
		func() {
			engine.Lock(&a, "1.lock a")
			engine.Lock(&b, "1.lock b")
			engine.Unlock(&b, "1.unlock b")
			engine.Unlock(&a, "1.unlock a")
		},
		func() {
			engine.Lock(&b, "2.lock b")
			engine.Lock(&a, "2.lock a")
			engine.Unlock(&a, "2.unlock a")
			engine.Unlock(&b, "2.unlock b")
		},
	}, "go")
}

// TestPeriodPrograms runs PERIOD on small programs with known outcomes: the bug of
// SCTBench's Figure 1 (T3 between T1's two writes, depth 2: 3 periods for the parallel
// scheduler, and n+1 = 4 for the serialized one, which needs a period per thread), a lock-order
// inversion (each thread takes its first lock; the body does not join, so the blocked
// goroutines are a leak), and busy-wait loops, whose yields must not starve the goroutines
// they wait for (no false livelock).
func TestPeriodPrograms(t *testing.T) {
	tests := []struct {
		name    string
		body    func(*engine.T)
		mode    string
		periods int
		bug     engine.BugKind // "" for none
	}{
		{"figure1", figure1, strategy.PeriodParallel, 3, engine.Panic},
		{"figure1", figure1, strategy.PeriodSerial, 3, ""},
		{"figure1", figure1, strategy.PeriodSerial, 4, engine.Panic},
		{"lock order", periodLockOrder, strategy.PeriodParallel, 3, engine.Leak},
		{"lock order", periodLockOrder, strategy.PeriodSerial, 3, engine.Leak},
		{"busy wait", spinWait(2, 1), strategy.PeriodParallel, 4, ""},
		{"busy wait", spinWait(2, 1), strategy.PeriodSerial, 4, ""},
		{"busy wait, body only", spinWait(2, 0), strategy.PeriodParallel, 4, ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/P=%d", tt.name, tt.mode, tt.periods), func(t *testing.T) {
			s, err := strategy.NewPeriod(tt.mode, tt.periods)
			if err != nil {
				t.Fatal(err)
			}
			var first engine.BugKind
			firstAt, firstSch := 0, ""
			rep := engine.Explore(tt.body, engine.Config{
				Strategy: s, KeepGoing: true, Schedules: 100_000, MaxSteps: 10_000,
				OnExecution: func(n int, r *engine.Result) {
					if r.Bug != nil && first == "" {
						first, firstAt, firstSch = r.Bug.Kind, n, s.Schedule()
					}
				},
			})
			if rep.Err != nil || len(rep.Limitations) > 0 {
				t.Fatalf("exploration failed: %v %v", rep.Err, rep.Limitations)
			}
			if first != tt.bug {
				t.Errorf("first bug %q, want %q", first, tt.bug)
			}
			if rep.Stopped != "exhausted" {
				t.Errorf("stopped %s", rep.Stopped)
			}
			t.Logf("%d schedules, %d buggy, first %s at %d %s; %s", rep.Schedules, rep.Buggy, first, firstAt, firstSch, rep.Exhausted)
		})
	}
}

// TestPeriodSaysSelectChoicesAreCut: PERIOD takes a select's first ready case, so its
// exhaustion message must not claim every schedule of a program with such a select.
func TestPeriodSaysSelectChoicesAreCut(t *testing.T) {
	body := func(t *engine.T) {
		a := engine.MakeChan[int](1, "make a")
		b := engine.MakeChan[int](1, "make b")
		engine.Send(a, 1, "send a")
		engine.Send(b, 2, "send b")
		engine.Select("select", false, engine.RecvCase(a), engine.RecvCase(b))
	}
	s, err := strategy.NewPeriod(strategy.PeriodParallel, 3)
	if err != nil {
		t.Fatal(err)
	}
	rep := engine.Explore(body, engine.Config{Strategy: s})
	if rep.Stopped != "exhausted" || !strings.HasSuffix(rep.Exhausted, "; a select with several ready cases always took the first") {
		t.Errorf("stopped %s: %q, want the cut noted", rep.Stopped, rep.Exhausted)
	}
}
