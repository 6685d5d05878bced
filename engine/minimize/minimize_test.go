package minimize

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// The programs below start their goroutines in one step, together with noise goroutines that
// only write their own variables: the random scheduler switches among them all the time, so
// the schedules it finds have many more preemptions than their bugs need.

// noise returns n goroutines that each write their own variable k times.
func noise(n, k int) []func() {
	vars := make([]int, n)
	fs := make([]func(), n)
	for i := range fs {
		fs[i] = func() {
			for j := 0; j < k; j++ {
				engine.Write(unsafe.Pointer(&vars[i]), fmt.Sprintf("noise%d.%d", i, j))
				vars[i]++
			}
		}
	}
	return fs
}

// startAll starts fs in one step and waits for them.
func startAll(fs []func()) {
	var wg sync.WaitGroup
	engine.WGAdd(&wg, len(fs), "wg.add")
	ws := make([]func(), len(fs))
	for i, f := range fs {
		ws[i] = func() {
			defer engine.WGDone(&wg, "wg.done")
			f()
		}
	}
	engine.GoAll(ws, "go")
	engine.WGWait(&wg, "wg.wait")
}

// lostUpdate is two unsynchronized increments: the bug needs exactly one preemption, between
// the read and the write of one of them (with none, each increment runs to its end).
func lostUpdate(t *engine.T) {
	var x int
	inc := func() {
		engine.Read(unsafe.Pointer(&x), "inc.read")
		v := x
		engine.Write(unsafe.Pointer(&x), "inc.write")
		x = v + 1
	}
	startAll(append([]func(){inc, inc}, noise(4, 6)...))
	if x != 2 {
		panic(fmt.Sprintf("lost update: x = %d", x))
	}
}

// order fails when G2's two reads of x see 1 then 2: they must interleave with G1's two
// writes as a1 b1 a2 b2, which needs exactly two preemptions (G1 after a1, G2 after b1: both
// are still enabled there). With bugB, it also fails, with another bug, when both reads see 1:
// the first of the two preemptions alone gives that.
func order(bugB bool) func(*engine.T) {
	return func(t *engine.T) {
		var x int
		g1 := func() {
			engine.Write(unsafe.Pointer(&x), "a1")
			x = 1
			engine.Write(unsafe.Pointer(&x), "a2")
			x = 2
		}
		g2 := func() {
			engine.Read(unsafe.Pointer(&x), "b1")
			r1 := x
			engine.Read(unsafe.Pointer(&x), "b2")
			r2 := x
			if r1 == 1 && r2 == 2 {
				panic("bug A: saw the intermediate value, then the final one")
			}
			if bugB && r1 == 1 && r2 == 1 {
				panic("bug B: saw the intermediate value twice")
			}
		}
		startAll(append([]func(){g1, g2}, noise(4, 6)...))
	}
}

// abba is a lock-order inversion: the deadlock needs one preemption, after the first lock
// of one of the two goroutines.
func abba(t *engine.T) {
	var a, b sync.Mutex
	lock2 := func(x, y *sync.Mutex, p1, p2 string) func() {
		return func() {
			engine.Lock(x, p1)
			engine.Lock(y, p2)
			engine.Unlock(y, p2+".unlock")
			engine.Unlock(x, p1+".unlock")
		}
	}
	startAll(append([]func(){lock2(&a, &b, "ab.a", "ab.b"), lock2(&b, &a, "ba.b", "ba.a")}, noise(3, 5)...))
}

// selectOrder fails when its select takes b's value first although a's is ready too: the bug
// needs no preemption, but the data choice.
func selectOrder(t *engine.T) {
	a := engine.MakeChan[int](1, "a.make")
	b := engine.MakeChan[int](1, "b.make")
	startAll(append([]func(){
		func() { engine.Send(a, 1, "a.send") },
		func() { engine.Send(b, 2, "b.send") },
	}, noise(3, 5)...))
	ra, rb := engine.RecvCase(a), engine.RecvCase(b)
	if engine.Select("select", false, ra, rb) == 1 {
		t.Fatalf("got b's %d first, want a's", rb.Value())
	}
}

// spinLost is two unsynchronized increments whose end the body waits for in a busy-wait loop
// that yields: every schedule switches away from the spinning body while it is enabled.
func spinLost(t *engine.T) {
	var n, done int
	var mu sync.Mutex
	inc := func() {
		engine.Read(unsafe.Pointer(&n), "spin.read")
		v := n
		engine.Write(unsafe.Pointer(&n), "spin.write")
		n = v + 1
		engine.Lock(&mu, "spin.lock")
		done++
		engine.Unlock(&mu, "spin.unlock")
	}
	engine.Go(inc, "spin.go")
	engine.Go(inc, "spin.go")
	for {
		engine.Lock(&mu, "wait.lock")
		d := done
		engine.Unlock(&mu, "wait.unlock")
		if d == 2 {
			break
		}
		engine.Gosched("wait.yield")
	}
	if n != 2 {
		t.Errorf("n = %d, want 2", n)
	}
}

// spinForever never ends unless the body's write comes before the first goroutine's first
// read: a livelock, which needs one preemption (of the body, after its go statement).
func spinForever(t *engine.T) {
	var flag int
	engine.GoAll(append([]func(){func() {
		for {
			engine.Read(unsafe.Pointer(&flag), "ll.read")
			if flag == 1 {
				return
			}
		}
	}}, noise(3, 4)...), "ll.go")
	engine.Write(unsafe.Pointer(&flag), "ll.write")
	flag = 1
}

// livelocker makes a long livelock schedule of spinForever: for its first steps it runs random
// goroutines other than the body, then the spinner, G1, whenever it can.
type livelocker struct {
	rng   *rand.Rand
	first int
}

func (*livelocker) Name() string                { return "livelocker" }
func (*livelocker) Params() map[string]string   { return nil }
func (*livelocker) Begin() bool                 { return true }
func (*livelocker) Choose(c *engine.Choice) int { return 0 }
func (*livelocker) End(*engine.Result)          {}
func (l *livelocker) Pick(d *engine.Decision) engine.GID {
	var others []engine.GID
	for _, g := range d.Enabled() {
		if g != 0 {
			others = append(others, g)
		}
	}
	switch {
	case len(others) == 0:
		return d.EnabledAt(0)
	case d.Step > l.first && d.IsEnabled(1):
		return 1
	}
	return others[l.rng.IntN(len(others))]
}

var info = engine.TestInfo{Package: "example.com/p", Name: "TestMinimize"}

// find explores body with the random scheduler seeded with seed and returns the schedule file
// of the first execution whose bug satisfies want.
func find(t *testing.T, body func(*engine.T), seed uint64, want func(*engine.Bug) bool) *schedule.File {
	t.Helper()
	return findWith(t, body, strategy.NewRandom(seed), 0, want)
}

// findWith explores body with s, with the step bound maxSteps, and returns the schedule file of
// the first execution whose bug satisfies want.
func findWith(t *testing.T, body func(*engine.T), s engine.Strategy, maxSteps int, want func(*engine.Bug) bool) *schedule.File {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var f *schedule.File
	engine.Explore(body, engine.Config{Strategy: s, Schedules: 5000, KeepGoing: true, Context: ctx, MaxSteps: maxSteps,
		OnExecution: func(n int, r *engine.Result) {
			if f == nil && r.Bug != nil && want(r.Bug) {
				f = engine.NewScheduleFile(r, info, s, n)
				cancel()
			}
		}})
	if f == nil {
		t.Fatalf("%s found no such bug", s.Name())
	}
	return f
}

func anyBug(*engine.Bug) bool { return true }

func message(prefix string) func(*engine.Bug) bool {
	return func(b *engine.Bug) bool { return strings.HasPrefix(b.Message, prefix) }
}

// replayFile saves f, loads it back and replays it as the replay command does.
func replayFile(t *testing.T, body func(*engine.T), f *schedule.File) *engine.Result {
	t.Helper()
	path := filepath.Join(t.TempDir(), "min.json")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := schedule.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	r := engine.Run(body, strategy.NewReplayFile(loaded), engine.Config{MaxSteps: engine.ReplayMaxSteps(loaded)})
	if err := engine.CheckReproduced(loaded, r); err != nil {
		t.Fatalf("the minimized schedule does not replay: %v", err)
	}
	return r
}

// TestMinimizeToKnownMinimum minimizes long random schedules of bugs whose minimal number of
// preemptions is known, and replays the result from its file.
func TestMinimizeToKnownMinimum(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func(*engine.T)
		seed uint64
		want func(*engine.Bug) bool
		kind engine.BugKind
		min  int
	}{
		{"lost-update/seed1", lostUpdate, 1, anyBug, engine.Panic, 1},
		{"lost-update/seed2", lostUpdate, 2, anyBug, engine.Panic, 1},
		{"order/seed1", order(false), 1, anyBug, engine.Panic, 2},
		{"order/seed3", order(false), 3, anyBug, engine.Panic, 2},
		{"abba/seed1", abba, 1, anyBug, engine.Deadlock, 1},
		{"select/seed1", selectOrder, 1, anyBug, engine.Fail, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := find(t, tc.body, tc.seed, tc.want)
			if f.Bug.Kind != string(tc.kind) {
				t.Fatalf("found %s, want a %s", f.Bug.Kind, tc.kind)
			}
			var progress []int
			res, err := Minimize(tc.body, f, Options{OnAccepted: func(p, n int) { progress = append(progress, p, n) }})
			if err != nil {
				t.Fatal(err)
			}
			if len(progress) != 2*res.Accepted || res.Accepted > 0 && progress[len(progress)-2] != res.After {
				t.Errorf("progress %v: want %d accepted candidates, the last with %d preemptions", progress, res.Accepted, res.After)
			}
			for i := 2; i < len(progress); i += 2 {
				if progress[i] >= progress[i-2] || progress[i+1] <= progress[i-1] {
					t.Errorf("progress %v: preemptions must decrease as executions increase", progress)
				}
			}
			t.Logf("%s: %d → %d preemptions, %d → %d steps, %d executions (%d candidates: %d accepted, %d passed, %d other bug, %d failed)",
				res.Identity, res.Before, res.After, f.Result.Steps, res.File.Result.Steps,
				res.Executions, res.Candidates, res.Accepted, res.Passed, res.OtherBug, res.Failed)
			if res.Before != f.Result.Preemptions || res.Before < tc.min+5 {
				t.Fatalf("before = %d (file: %d): want a long schedule", res.Before, f.Result.Preemptions)
			}
			if res.After != tc.min || res.File.Result.Preemptions != tc.min {
				t.Errorf("after = %d (file: %d), want %d", res.After, res.File.Result.Preemptions, tc.min)
			}
			if res.Stopped != StoppedMinimal {
				t.Errorf("stopped: %s, want %s", res.Stopped, StoppedMinimal)
			}
			if res.File == f || res.File.Test != f.Test {
				t.Errorf("file %p (original %p), test %v", res.File, f, res.File.Test)
			}
			wantParams := map[string]string{"from": "random", "from.seed": f.Strategy.Params["seed"],
				"from.execution": fmt.Sprint(f.Execution), "from.preemptions": fmt.Sprint(res.Before)}
			if res.File.Strategy.Name != StrategyName || !reflect.DeepEqual(res.File.Strategy.Params, wantParams) {
				t.Errorf("strategy %+v, want %s %v", res.File.Strategy, StrategyName, wantParams)
			}
			r := replayFile(t, tc.body, res.File)
			if r.Preemptions != tc.min || IdentityOf(r.Bug) != res.Identity {
				t.Errorf("replay: %d preemptions, %v; want %d, %v", r.Preemptions, IdentityOf(r.Bug), tc.min, res.Identity)
			}
			if res.Identity.Kind != tc.kind || res.Identity.Pos != f.Bug.Pos {
				t.Errorf("identity %v, want kind %s at %s", res.Identity, tc.kind, f.Bug.Pos)
			}
		})
	}
}

// TestOtherBugIsNotAccepted minimizes a schedule of bug A of order(true): dropping the second
// of its two essential preemptions gives bug B, which must be rejected, so the result keeps
// two preemptions; minimizing a schedule of bug B itself reaches one.
func TestOtherBugIsNotAccepted(t *testing.T) {
	body := order(true)
	for _, tc := range []struct {
		name, prefix string
		min          int
		otherBug     bool
	}{
		{"bug-A", "bug A", 2, true},
		{"bug-B", "bug B", 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := find(t, body, 1, message(tc.prefix))
			res, err := Minimize(body, f, Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d → %d preemptions, %d executions (%d other bug, %d passed)",
				res.Identity, res.Before, res.After, res.Executions, res.OtherBug, res.Passed)
			if res.After != tc.min {
				t.Errorf("after = %d, want %d", res.After, tc.min)
			}
			if (res.OtherBug > 0) != tc.otherBug {
				t.Errorf("%d candidates had another bug; want some: %v", res.OtherBug, tc.otherBug)
			}
			if !strings.HasPrefix(res.Bug.Message, tc.prefix) || res.Identity.Pos != f.Bug.Pos {
				t.Errorf("minimized to %v (%s), want %s at %s", res.Identity, res.Bug.Message, tc.prefix, f.Bug.Pos)
			}
			r := replayFile(t, body, res.File)
			if !strings.HasPrefix(r.Bug.Message, tc.prefix) {
				t.Errorf("replay: %s", r.Bug.Message)
			}
		})
	}
}

// TestBudget stops the minimization of one schedule at every execution budget, and with a
// canceled context: each time the best schedule so far is returned, and it replays to the
// bug; a budget one execution short of the full minimization already has its result.
func TestBudget(t *testing.T) {
	f := find(t, lostUpdate, 1, anyBug)
	full, err := Minimize(lostUpdate, f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("full: %d → %d preemptions in %d executions", full.Before, full.After, full.Executions)
	improvedEarly := false
	for budget := 1; budget < full.Executions; budget++ {
		res, err := Minimize(lostUpdate, f, Options{MaxExecutions: budget})
		if err != nil {
			t.Fatalf("budget %d: %v", budget, err)
		}
		if res.Stopped != StoppedExecutions || res.Executions > budget {
			t.Fatalf("budget %d: stopped %s after %d executions", budget, res.Stopped, res.Executions)
		}
		if res.After > res.Before || res.After < full.After {
			t.Fatalf("budget %d: %d → %d preemptions (full: %d)", budget, res.Before, res.After, full.After)
		}
		if res.After == res.Before {
			if res.File != f {
				t.Fatalf("budget %d: no progress, but not the original file", budget)
			}
			continue
		}
		r := replayFile(t, lostUpdate, res.File)
		if IdentityOf(r.Bug) != full.Identity || r.Preemptions != res.After {
			t.Fatalf("budget %d: replay %v with %d preemptions", budget, IdentityOf(r.Bug), r.Preemptions)
		}
		if budget == full.Executions-1 && res.After == full.After {
			improvedEarly = true
		}
	}
	if !improvedEarly {
		t.Errorf("a budget of %d executions did not keep the best schedule found", full.Executions-1)
	}

	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	past, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"canceled", Options{Context: canceled}, StoppedCanceled},
		{"deadline", Options{Context: past}, StoppedTime},
		{"executions", Options{MaxExecutions: 1}, StoppedExecutions},
	} {
		res, err := Minimize(lostUpdate, f, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.Stopped != tc.want || res.File != f || res.After != f.Result.Preemptions || res.Candidates != 0 {
			t.Errorf("%s: %+v", tc.name, res)
		}
	}
}

// TestKeepAllReexecutes checks the completion rule's promise: keeping every preemption of a
// schedule re-executes it exactly.
func TestKeepAllReexecutes(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func(*engine.T)
		seed uint64
	}{
		{"lost-update", lostUpdate, 5},
		{"order", order(true), 6},
		{"abba", abba, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := find(t, tc.body, tc.seed, anyBug)
			rec := &recording{Replay: strategy.NewReplayFile(f)}
			r := engine.Run(tc.body, rec, engine.Config{MaxSteps: -1})
			if err := engine.CheckReproduced(f, r); err != nil {
				t.Fatal(err)
			}
			if len(rec.preemptions) != f.Result.Preemptions {
				t.Fatalf("recorded %d preemptions, the file has %d", len(rec.preemptions), f.Result.Preemptions)
			}
			b := newBasis(r.Schedule, rec.preemptions)
			all := make([]int, len(b.preemptions))
			for i := range all {
				all[i] = i
			}
			g := newGuided(&b, all)
			again := engine.Run(tc.body, g, engine.Config{MaxSteps: -1})
			if !reflect.DeepEqual(again.Schedule, f.Steps) {
				t.Errorf("keeping every preemption gave another schedule (%d steps, %d preemptions; want %d, %d)",
					again.Steps, again.Preemptions, f.Result.Steps, f.Result.Preemptions)
			}
			if !reflect.DeepEqual(g.preemptions, rec.preemptions) {
				t.Errorf("preemptions %v, want %v", g.preemptions, rec.preemptions)
			}
		})
	}
}

// writers returns a body that starts n goroutines in one step and returns; each writes its
// own variable twice, at "<i>.1" and "<i>.2".
func writers(n int) func(*engine.T) {
	return func(t *engine.T) {
		vars := make([]int, n)
		fs := make([]func(), n)
		for i := range fs {
			fs[i] = func() {
				engine.Write(unsafe.Pointer(&vars[i]), fmt.Sprintf("%d.1", i+1))
				engine.Write(unsafe.Pointer(&vars[i]), fmt.Sprintf("%d.2", i+1))
			}
		}
		engine.GoAll(fs, "go")
	}
}

// TestCompletionRule runs candidates of hand-written schedules of writers and checks the
// goroutine of every step against the rule. The body's first step starts the writers, and it
// is done after it, so the second step is not a preemption.
func TestCompletionRule(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n        int
		schedule string // the original's goroutines (then the first enabled one runs)
		prefix   int    // the candidates follow only the original's first prefix steps (0: all)
		keep     []int
		want     string
	}{
		// The original 02121 has two preemptions: 0 is (G2 after 1 step) → G1, 1 is
		// (G1 after 1 step) → G2.
		{"keep-all", 2, "02121", 0, []int{0, 1}, "02121"},
		// Without 0, G2 continues; G1 runs when G2 is done, to its end: at the kept point
		// (G1, 1) the target is done, and no other goroutine is enabled.
		{"keep-1", 2, "02121", 0, []int{1}, "02211"},
		// Without 1, G1 continues to its end, then G2.
		{"keep-0", 2, "02121", 0, []int{0}, "02112"},
		{"keep-none", 2, "02121", 0, nil, "02211"},
		// At a non-preemptive point, the goroutine whose next step comes first in the
		// original runs: G3 before G1, whatever their ids.
		{"earliest", 3, "0323211", 0, nil, "0332211"},
		// Goroutines whose next step is not in the followed schedule: round robin after the
		// last one, G3 then G1 after G2.
		{"round-robin", 3, "02", 2, nil, "0223311"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var steps []schedule.Step
			for _, c := range tc.schedule {
				steps = append(steps, schedule.Step{Kind: schedule.Run, G: c - '0'})
			}
			body := writers(tc.n)
			rec := &recording{Replay: strategy.NewReplay(steps, strategy.ReplayThen(&firstEnabled{}))}
			r := engine.Run(body, rec, engine.Config{MaxSteps: -1})
			if r.Err != nil || r.Bug != nil {
				t.Fatalf("original: %v %v", r.Err, r.Bug)
			}
			followed := r.Schedule
			if tc.prefix > 0 {
				followed = followed[:tc.prefix]
			}
			b := newBasis(followed, rec.preemptions)
			for _, k := range tc.keep {
				if k >= len(b.preemptions) {
					t.Fatalf("original has preemptions %v", b.preemptions)
				}
			}
			g := newGuided(&b, tc.keep)
			c := engine.Run(body, g, engine.Config{MaxSteps: -1})
			var got strings.Builder
			for _, s := range c.Schedule {
				fmt.Fprint(&got, s.G)
			}
			if got.String() != tc.want {
				t.Errorf("candidate ran %s, want %s", got.String(), tc.want)
			}
			if c.Preemptions > len(tc.keep) {
				t.Errorf("%d preemptions, keeping %d", c.Preemptions, len(tc.keep))
			}
		})
	}
}

// firstEnabled runs the first enabled goroutine.
type firstEnabled struct{}

func (*firstEnabled) Name() string                       { return "first" }
func (*firstEnabled) Params() map[string]string          { return nil }
func (*firstEnabled) Begin() bool                        { return true }
func (*firstEnabled) Pick(d *engine.Decision) engine.GID { return d.EnabledAt(0) }
func (*firstEnabled) Choose(*engine.Choice) int          { return 0 }
func (*firstEnabled) End(*engine.Result)                 {}

// TestErrors checks the schedules Minimize refuses.
func TestErrors(t *testing.T) {
	f := find(t, lostUpdate, 1, anyBug)
	passed := *f
	passed.Bug = nil
	other := *f
	other.Steps = append([]schedule.Step(nil), f.Steps[:len(f.Steps)/2]...)
	for _, tc := range []struct {
		name string
		f    *schedule.File
		want string
	}{
		{"nil", nil, "no schedule"},
		{"no-bug", &passed, "no bug"},
		{"diverges", &other, "replay"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Minimize(lostUpdate, tc.f, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one about %q", err, tc.want)
			}
		})
	}
}

// TestBusyWait minimizes random schedules of spinLost and compares them with the fewest
// preemptions (as the engine counts them: the switch after a yield is one) among every
// schedule of the program with at most four preemptions that fail the same way, explored by
// iterative preemption bounding. Minimization is 1-minimal, not globally minimal: a busy-wait
// loop whose preemption is removed spins until the step bound, so some schedules cannot reach
// the minimum by removals alone; at least one does, and none goes below it.
func TestBusyWait(t *testing.T) {
	fails := func(b *engine.Bug) bool { return b.Kind == engine.Fail }
	least := -1
	engine.Explore(spinLost, engine.Config{Strategy: strategy.NewIPB(4), KeepGoing: true, MaxSteps: 200,
		OnExecution: func(n int, r *engine.Result) {
			if r.Bug != nil && fails(r.Bug) && (least < 0 || r.Preemptions < least) {
				least = r.Preemptions
			}
		}})
	if least < 0 {
		t.Fatal("no failing schedule with at most four preemptions")
	}
	reached := 0
	for seed := uint64(1); seed <= 5; seed++ {
		f := find(t, spinLost, seed, fails)
		res, err := Minimize(spinLost, f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: %d → %d preemptions (least: %d), %d executions (%d passed, %d other bug: livelocks)",
			seed, res.Before, res.After, least, res.Executions, res.Passed, res.OtherBug)
		if res.After < least || res.After > res.Before || res.Stopped != StoppedMinimal {
			t.Errorf("seed %d: %d → %d preemptions, stopped %s; the least is %d", seed, res.Before, res.After, res.Stopped, least)
		}
		if res.After == least {
			reached++
		}
		if res.File != f {
			replayFile(t, spinLost, res.File)
		}
	}
	if reached == 0 {
		t.Errorf("no schedule was minimized to the least number of preemptions, %d", least)
	}
}

// TestLivelock minimizes a long livelock schedule: candidates run with the original's step
// bound, which makes the livelock, and the result replays with it.
func TestLivelock(t *testing.T) {
	const bound = 80
	s := &livelocker{rng: rand.New(rand.NewPCG(1, 2)), first: 25}
	r := engine.Run(spinForever, s, engine.Config{MaxSteps: bound})
	if r.Bug == nil || r.Bug.Kind != engine.Livelock {
		t.Fatalf("no livelock: %v", r.Bug)
	}
	f := engine.NewScheduleFile(r, info, s, 1)
	res, err := Minimize(spinForever, f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v: %d → %d preemptions, %d executions", res.Identity, res.Before, res.After, res.Executions)
	if res.Before < 5 || res.After != 1 || res.Identity.Kind != engine.Livelock {
		t.Errorf("%v: %d → %d preemptions, want a long schedule minimized to 1", res.Identity, res.Before, res.After)
	}
	if res.File != f {
		r := replayFile(t, spinForever, res.File)
		if r.Bug.Step != bound {
			t.Errorf("livelock at step %d, want the bound %d", r.Bug.Step, bound)
		}
	}
}
