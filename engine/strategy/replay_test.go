package strategy_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// rpNewest is a deterministic strategy for recording: it runs the newest enabled goroutine
// and takes the last alternative of every choice.
type rpNewest struct{ begun int }

func (s *rpNewest) Name() string                       { return "newest" }
func (s *rpNewest) Params() map[string]string          { return map[string]string{"k": "v"} }
func (s *rpNewest) Begin() bool                        { s.begun++; return true }
func (s *rpNewest) Pick(d *engine.Decision) engine.GID { return d.EnabledAt(d.NumEnabled() - 1) }
func (s *rpNewest) Choose(c *engine.Choice) int        { return c.N - 1 }
func (s *rpNewest) End(*engine.Result)                 {}

var rpInfo = engine.TestInfo{Module: "m", Package: "m/bank", Name: "TestBank", Build: "b1"}

// rpLostUpdate is two unsynchronized increments, checked once both are done.
func rpLostUpdate(t *engine.T) {
	var n, done int
	var mu sync.Mutex
	inc := func() {
		engine.Read(unsafe.Pointer(&n), "lu.go:1")
		v := n
		engine.Write(unsafe.Pointer(&n), "lu.go:2")
		n = v + 1
		engine.Lock(&mu, "lu.go:3")
		done++
		engine.Unlock(&mu, "lu.go:4")
	}
	engine.Go(inc, "lu.go:0")
	engine.Go(inc, "lu.go:0")
	for {
		engine.Lock(&mu, "lu.go:5")
		d := done
		engine.Unlock(&mu, "lu.go:6")
		if d == 2 {
			break
		}
		engine.Gosched("lu.go:7")
	}
	if n != 2 {
		t.Errorf("n = %d, want 2", n)
	}
}

// rpDeadlock is a lock-order inversion between three goroutines.
func rpDeadlock(t *engine.T) {
	var a, b, c sync.Mutex
	lock2 := func(x, y *sync.Mutex, p1, p2, p3, p4 string) {
		engine.Lock(x, p1)
		engine.Lock(y, p2)
		engine.Unlock(y, p3)
		engine.Unlock(x, p4)
	}
	var wg sync.WaitGroup
	engine.WGAdd(&wg, 2, "dl.go:0")
	engine.Go(func() { defer engine.WGDone(&wg, "dl.go:9"); lock2(&a, &b, "dl.go:1", "dl.go:2", "dl.go:3", "dl.go:4") }, "dl.go:10")
	engine.Go(func() { defer engine.WGDone(&wg, "dl.go:9"); lock2(&b, &c, "dl.go:5", "dl.go:6", "dl.go:7", "dl.go:8") }, "dl.go:11")
	lock2(&c, &a, "dl.go:12", "dl.go:13", "dl.go:14", "dl.go:15")
	engine.WGWait(&wg, "dl.go:16")
}

// rpSelectOrder fails when the select takes b's value before a's, both being ready: the bug
// depends on a data choice.
func rpSelectOrder(t *engine.T) {
	a := engine.MakeChan[int](1, "so.go:1")
	b := engine.MakeChan[int](1, "so.go:2")
	var wg sync.WaitGroup
	engine.WGAdd(&wg, 2, "so.go:0")
	engine.Go(func() { engine.Send(a, 1, "so.go:3"); engine.WGDone(&wg, "so.go:8") }, "so.go:4")
	engine.Go(func() { engine.Send(b, 2, "so.go:5"); engine.WGDone(&wg, "so.go:8") }, "so.go:6")
	engine.WGWait(&wg, "so.go:9")
	var got []int
	for len(got) < 2 {
		ra, rb := engine.RecvCase(a), engine.RecvCase(b)
		switch engine.Select("so.go:7", false, ra, rb) {
		case 0:
			got = append(got, ra.Value())
		case 1:
			got = append(got, rb.Value())
		}
	}
	if got[0] != 1 {
		t.Fatalf("got %v, want 1 first", got)
	}
}

// rpRecord explores body with a random strategy until a bug, and returns the buggy
// execution's result and its schedule file, after a trip through the file format.
func rpRecord(t *testing.T, body func(*engine.T), seed uint64) (*engine.Result, *schedule.File) {
	t.Helper()
	s := strategy.NewRandom(seed)
	var f *schedule.File
	rep := engine.Explore(body, engine.Config{Strategy: s, Schedules: 2000, OnExecution: func(n int, r *engine.Result) {
		if r.Bug != nil && f == nil {
			f = engine.NewScheduleFile(r, rpInfo, s, n)
		}
	}})
	if rep.First == nil || f == nil {
		t.Fatalf("no bug in %d executions (stopped: %s, %v)", rep.Schedules, rep.Stopped, rep.Err)
	}
	var buf bytes.Buffer
	if err := f.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := schedule.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return rep.First, back
}

func TestReplayReproducesBug(t *testing.T) {
	for _, tc := range []struct {
		name    string
		body    func(*engine.T)
		kind    engine.BugKind
		choices bool // the schedule has data choices
	}{
		{"lost update", rpLostUpdate, engine.Fail, false},
		{"deadlock", rpDeadlock, engine.Deadlock, false},
		{"select order", rpSelectOrder, engine.Fail, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig, f := rpRecord(t, tc.body, 7)
			if orig.Bug.Kind != tc.kind {
				t.Fatalf("recorded bug %v, want a %s", orig.Bug, tc.kind)
			}
			hasChoice := false
			for _, s := range f.Steps {
				hasChoice = hasChoice || s.Kind == schedule.Choice
			}
			if hasChoice != tc.choices {
				t.Fatalf("schedule has data choices: %v, want %v", hasChoice, tc.choices)
			}
			if f.Strategy.Name != "random" || f.Strategy.Params["seed"] == "" {
				t.Errorf("file strategy %+v", f.Strategy)
			}
			for i := 0; i < 100; i++ {
				rp := strategy.NewReplayFile(f)
				r := engine.Run(tc.body, rp, engine.Config{})
				if err := engine.CheckReproduced(f, r); err != nil {
					t.Fatalf("replay %d: %v", i, err)
				}
				if r.Bug.Step != orig.Bug.Step || r.Bug.Pos != orig.Bug.Pos || r.Bug.Message != orig.Bug.Message {
					t.Fatalf("replay %d: bug %v, recorded %v", i, r.Bug, orig.Bug)
				}
				if !reflect.DeepEqual(r.Schedule, f.Steps) {
					t.Fatalf("replay %d: schedule\n%v\nrecorded\n%v", i, r.Schedule, f.Steps)
				}
				if r.Fingerprint != f.Result.Fingerprint || r.Steps != f.Result.Steps {
					t.Fatalf("replay %d: fingerprint %x, %d steps; recorded %x, %d steps", i, r.Fingerprint, r.Steps, f.Result.Fingerprint, f.Result.Steps)
				}
				if rp.Replayed() != len(f.Steps) || rp.Diverged() != nil {
					t.Fatalf("replay %d followed %d of %d decisions (%v)", i, rp.Replayed(), len(f.Steps), rp.Diverged())
				}
			}
			t.Logf("reproduced 100 times: %v", orig.Bug)
		})
	}
}

// TestReplayLivelock replays a livelock, which needs the step bound of the recording.
func TestReplayLivelock(t *testing.T) {
	body := func(t *engine.T) {
		var stop bool
		engine.Go(func() {
			for !stop {
				engine.Gosched("ll.go:1")
			}
		}, "ll.go:0")
		for !stop {
			engine.Gosched("ll.go:2")
		}
	}
	rec := engine.Run(body, strategy.NewRandom(5), engine.Config{MaxSteps: 50})
	if rec.Bug == nil || rec.Bug.Kind != engine.Livelock {
		t.Fatalf("recording: %v", rec.Bug)
	}
	f := engine.NewScheduleFile(rec, rpInfo, nil, 1)
	if got := engine.ReplayMaxSteps(f); got != 50 {
		t.Errorf("ReplayMaxSteps = %d, want 50", got)
	}
	r := engine.Run(body, strategy.NewReplayFile(f), engine.Config{MaxSteps: engine.ReplayMaxSteps(f)})
	if err := engine.CheckReproduced(f, r); err != nil {
		t.Error(err)
	}
	// With the default bound the execution goes past the schedule.
	r = engine.Run(body, strategy.NewReplayFile(f), engine.Config{})
	if !errors.Is(r.Err, strategy.ErrDiverged) || !strings.Contains(r.Err.Error(), "the schedule ended after step 50") {
		t.Errorf("replay with the default bound: %v", r.Err)
	}
	f.Bug = nil
	if got := engine.ReplayMaxSteps(f); got != -1 {
		t.Errorf("ReplayMaxSteps of a passing schedule = %d, want -1", got)
	}
}

// TestReplayLeakAtStepBound replays a leak seen at the step bound (issue 47): with
// -strict-leaks, a goroutine still retrying when the step bound is reached after the test
// returned is a leak at the bound, and its confirming replay runs to the same bound; it
// used to run past it ("replay diverged at step 101: the schedule ended after step 100, but
// the execution goes on") and the report was dropped. A leak found before the bound replays
// the same with the bound of its step.
func TestReplayLeakAtStepBound(t *testing.T) {
	retrying := func(t *engine.T) {
		engine.Go(func() {
			for {
				engine.Gosched("retry.go:2")
			}
		}, "retry.go:1")
	}
	blocked := func(t *engine.T) {
		c := engine.MakeChan[int](0, "send.go:1")
		engine.Go(func() { engine.Send(c, 1, "send.go:3") }, "send.go:2")
	}
	for _, tt := range []struct {
		name  string
		body  func(*engine.T)
		bound int
	}{
		{"a goroutine retrying at the bound", retrying, 100},
		{"a goroutine blocked on a send", blocked, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := engine.Run(tt.body, strategy.NewRandom(5), engine.Config{MaxSteps: 100, StrictLeaks: true})
			if rec.Bug == nil || rec.Bug.Kind != engine.Leak {
				t.Fatalf("recording: %v", rec.Bug)
			}
			if tt.bound > 0 && rec.Bug.Step != tt.bound {
				t.Fatalf("recorded leak at step %d, want the bound %d", rec.Bug.Step, tt.bound)
			}
			f := engine.NewScheduleFile(rec, rpInfo, nil, 1)
			if got := engine.ReplayMaxSteps(f); got != rec.Bug.Step {
				t.Errorf("ReplayMaxSteps = %d, want the leak's step %d", got, rec.Bug.Step)
			}
			r := engine.Run(tt.body, strategy.NewReplayFile(f), engine.Config{MaxSteps: engine.ReplayMaxSteps(f), StrictLeaks: true})
			if err := engine.CheckReproduced(f, r); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestReplayFromFile goes through a file on disk, and refuses a file of another test.
func TestReplayFromFile(t *testing.T) {
	_, f := rpRecord(t, rpDeadlock, 3)
	path := filepath.Join(t.TempDir(), "deadlock.json")
	if err := f.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := schedule.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	other := rpInfo
	other.Name = "TestOther"
	err = loaded.Check(other)
	want := "schedule file " + path + " is for test TestBank in package m/bank, not TestOther"
	if !errors.Is(err, schedule.ErrOtherTest) || err.Error() != want {
		t.Fatalf("Check against another test: %v\nwant %s", err, want)
	}
	if err := loaded.Check(rpInfo); err != nil {
		t.Fatal(err)
	}
	r := engine.Run(rpDeadlock, strategy.NewReplayFile(loaded), engine.Config{})
	if err := engine.CheckReproduced(loaded, r); err != nil {
		t.Fatal(err)
	}
}

// rpBody is a test program whose behaviour depends on flag, flipped between recording
// (false) and replay (true).
type rpBody func(flag bool) func(*engine.T)

func TestReplayDivergence(t *testing.T) {
	for _, tc := range []struct {
		name   string
		body   rpBody
		step   int
		want   string // the whole message, or its start when prefix is set
		prefix bool
		inEnd  bool // found when the execution ended
		// opened: found at the next decision, the step's goroutine having started and gone
		// on to its first operation (it checks that operation against the schedule's)
		opened   bool
		decision int // DivergenceError.Decision, when not -1
	}{
		{
			name: "blocked",
			body: func(flag bool) func(*engine.T) {
				return func(t *engine.T) {
					var a, b sync.Mutex
					engine.Lock(&a, "bl.go:1")
					engine.Go(func() {
						t.Log("starts") // observable: G1's start is a step of its own
						m := &b
						if flag {
							m = &a
						}
						engine.Lock(m, "bl.go:3")
						engine.Unlock(m, "bl.go:4")
					}, "bl.go:2")
					engine.Unlock(&a, "bl.go:5")
				}
			},
			step:     3, // G0's lock and go, G1's start and lock (it blocks: found at step 4)
			want:     "replay diverged at step 3: the schedule runs G1 (lock at bl.go:3), but G1 is blocked; enabled: G0 (unlock at bl.go:5)",
			decision: 2,
			opened:   true,
		},
		{
			name: "finished",
			body: func(flag bool) func(*engine.T) {
				return func(t *engine.T) {
					var x int
					engine.Go(func() {
						engine.Write(unsafe.Pointer(&x), "fi.go:2")
						if !flag {
							engine.Write(unsafe.Pointer(&x), "fi.go:2")
						}
					}, "fi.go:1")
					engine.Read(unsafe.Pointer(&x), "fi.go:3")
				}
			},
			step: 3, // G0's go (G1 runs to its write: an eager start), G1's write, its second
			want: "replay diverged at step 3: the schedule runs G1 (write at fi.go:2), but G1 has finished; enabled: G0 (read at fi.go:3)",
		},
		{
			name: "other operation",
			body: func(flag bool) func(*engine.T) {
				return func(t *engine.T) {
					var x int
					engine.Go(func() {
						t.Log("starts") // observable: G1's start is a step of its own
						if flag {
							engine.Read(unsafe.Pointer(&x), "op.go:2")
						} else {
							engine.Write(unsafe.Pointer(&x), "op.go:2")
						}
					}, "op.go:1")
					engine.Read(unsafe.Pointer(&x), "op.go:3")
				}
			},
			step:   2, // G0's go, G1's start and write (it reads: found at step 3)
			want:   "replay diverged at step 2: the schedule runs G1 (write at op.go:2), but G1's first operation is read at op.go:2; enabled: G0 (read at op.go:3)",
			opened: true,
		},
		{
			name: "other position",
			body: func(flag bool) func(*engine.T) {
				return func(t *engine.T) {
					var mu sync.Mutex
					pos := "ps.go:2"
					if flag {
						pos = "ps.go:20"
					}
					engine.Lock(&mu, "ps.go:1")
					engine.Unlock(&mu, pos)
				}
			},
			step: 2,
			want: "replay diverged at step 2: the schedule runs G0 (unlock at ps.go:2), but G0's next operation is unlock at ps.go:20",
		},
		{
			name: "missing goroutine",
			body: func(flag bool) func(*engine.T) {
				return func(t *engine.T) {
					var x int
					w := func() { engine.Write(unsafe.Pointer(&x), "mg.go:3") }
					fs := []func(){w}
					if flag {
						fs = nil
					}
					engine.Go(w, "mg.go:1")
					engine.GoAll(fs, "mg.go:2")
					engine.Read(unsafe.Pointer(&x), "mg.go:4")
				}
			},
			step: 4, // G0's go, G1's write, G0's GoAll (eager starts both), G2's write
			want: "replay diverged at step 4: the schedule runs G2 (write at mg.go:3), but G2 does not exist: the execution has created 2 goroutine(s); enabled: G0 (read at mg.go:4)",
		},
		{
			name: "more steps than recorded",
			body: func(flag bool) func(*engine.T) {
				return func(t *engine.T) {
					engine.Gosched("ms.go:1")
					if flag {
						engine.Gosched("ms.go:2")
					}
				}
			},
			step:     2,
			want:     "replay diverged at step 2: the schedule ended after step 1, but the execution goes on; enabled: G0 (yield at ms.go:2)",
			decision: 1,
		},
		{
			name: "ended early",
			body: func(flag bool) func(*engine.T) {
				return func(t *engine.T) {
					engine.Gosched("ee.go:1")
					if !flag {
						engine.Gosched("ee.go:2")
						engine.Gosched("ee.go:3")
					}
				}
			},
			step:     1,
			want:     "replay diverged at step 1: the schedule has 2 more decision(s), the next G0 (yield at ee.go:2), but the execution ended after step 1 (it passed)",
			inEnd:    true,
			decision: 1,
		},
		{
			name: "ended early with another bug",
			body: func(flag bool) func(*engine.T) {
				return func(t *engine.T) {
					engine.Gosched("eb.go:1")
					if flag {
						panic("boom")
					}
					engine.Gosched("eb.go:2")
				}
			},
			step:   1,
			want:   "replay diverged at step 1: the schedule has 1 more decision(s), the next G0 (yield at eb.go:2), but the execution ended after step 1 (it found a panic at ",
			prefix: true,
			inEnd:  true,
		},
		{
			name: "data choice expected",
			body: rpSelectProgram(func(flag bool) []int {
				if flag {
					return []int{0, 0} // only a is ready: no choice
				}
				return []int{0, 1}
			}),
			step: 4,
			want: "replay diverged at step 4: the schedule makes a data choice here (choice 1 of 2 by G0 (select at ch.go:5)), but the execution schedules a goroutine; enabled: G0 (yield at ch.go:6)",
		},
		{
			name: "goroutine step expected",
			body: rpSelectProgram(func(flag bool) []int {
				if flag {
					return []int{0, 1}
				}
				return []int{0, 0}
			}),
			step: 3,
			want: "replay diverged at step 3: the schedule runs G0 (yield at ch.go:6) next, but the execution makes a data choice: G0 chooses among 2 alternatives (select at ch.go:5)",
		},
		{
			name: "other number of alternatives",
			body: rpSelectProgram(func(flag bool) []int {
				if flag {
					return []int{0, 1, 2}
				}
				return []int{0, 1, 0}
			}),
			step: 4,
			want: "replay diverged at step 4: the schedule takes alternative 1 of 2 (select at ch.go:5), but the execution offers 3 alternatives",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Recording, then replaying the same program, follows the schedule.
			rec := engine.Run(tc.body(false), &rpNewest{}, engine.Config{})
			if rec.Err != nil {
				t.Fatalf("recording: %v", rec.Err)
			}
			if r := engine.Run(tc.body(false), strategy.NewReplay(rec.Schedule), engine.Config{}); r.Err != nil {
				t.Fatalf("replay of the same program: %v", r.Err)
			}
			rp := strategy.NewReplay(rec.Schedule)
			r := engine.Run(tc.body(true), rp, engine.Config{})
			if r.Err == nil {
				t.Fatalf("replay of the changed program did not diverge; schedule %v", rec.Schedule)
			}
			msg := r.Err.Error()
			if tc.prefix && !strings.HasPrefix(msg, tc.want) || !tc.prefix && msg != tc.want {
				t.Errorf("error:\n%s\nwant:\n%s\nschedule: %v", msg, tc.want, rec.Schedule)
			}
			var de *strategy.DivergenceError
			if !errors.Is(r.Err, strategy.ErrDiverged) || !errors.As(r.Err, &de) {
				t.Fatalf("error %v (%T) is not a divergence", r.Err, r.Err)
			}
			if de.Step != tc.step {
				t.Errorf("divergence at step %d, want %d", de.Step, tc.step)
			}
			if tc.decision > 0 && de.Decision != tc.decision {
				t.Errorf("divergence at decision %d, want %d", de.Decision, tc.decision)
			}
			if rp.Err() != r.Err {
				t.Errorf("Err() = %v, the result has %v", rp.Err(), r.Err)
			}
			if tc.opened && r.Steps != tc.step+1 {
				t.Errorf("the execution went on to step %d after diverging at step %d, want it found at step %d", r.Steps, tc.step, tc.step+1)
			}
			if !tc.inEnd && !tc.opened && r.Steps != tc.step {
				t.Errorf("the execution went on to step %d after diverging at step %d", r.Steps, tc.step)
			}
		})
	}
}

// rpSelectProgram sends one value to each channel of targets (indexes into a, b, c, all with
// room for three values), then selects among the three; which are ready depends on flag.
func rpSelectProgram(targets func(flag bool) []int) rpBody {
	return func(flag bool) func(*engine.T) {
		return func(t *engine.T) {
			chs := []chan int{
				engine.MakeChan[int](3, "ch.go:1"),
				engine.MakeChan[int](3, "ch.go:2"),
				engine.MakeChan[int](3, "ch.go:3"),
			}
			for _, k := range targets(flag) {
				engine.Send(chs[k], k, "ch.go:4")
			}
			engine.Select("ch.go:5", false, engine.RecvCase(chs[0]), engine.RecvCase(chs[1]), engine.RecvCase(chs[2]))
			engine.Gosched("ch.go:6")
		}
	}
}

// TestReplayThen replays a prefix of a schedule, then lets another strategy go on.
func TestReplayThen(t *testing.T) {
	rec := engine.Run(rpLostUpdate, strategy.NewRandom(11), engine.Config{})
	if len(rec.Schedule) < 10 {
		t.Fatalf("schedule of %d decisions", len(rec.Schedule))
	}
	prefix := rec.Schedule[:6]

	then := &rpNewest{}
	rp := strategy.NewReplay(prefix, strategy.ReplayThen(then), strategy.ReplayOf("random", map[string]string{"seed": "11"}))
	r := engine.Run(rpLostUpdate, rp, engine.Config{})
	if r.Err != nil {
		t.Fatalf("replay with a continuation: %v", r.Err)
	}
	if then.begun != 1 {
		t.Errorf("the continuation began %d times, want 1", then.begun)
	}
	if !reflect.DeepEqual(r.Schedule[:len(prefix)], prefix) {
		t.Errorf("schedule %v does not start with %v", r.Schedule, prefix)
	}
	if len(r.Schedule) <= len(prefix) {
		t.Errorf("the continuation made no decision")
	}
	want := map[string]string{"decisions": "6", "of": "random", "of.seed": "11", "then": "newest", "then.k": "v"}
	if p := rp.Params(); !reflect.DeepEqual(p, want) || rp.Name() != "replay" {
		t.Errorf("Name %q, Params %v; want replay, %v", rp.Name(), p, want)
	}

	// Without a continuation, the same prefix diverges where it ends.
	r = engine.Run(rpLostUpdate, strategy.NewReplay(prefix), engine.Config{})
	if !errors.Is(r.Err, strategy.ErrDiverged) || !strings.Contains(r.Err.Error(), "the schedule ended after step") {
		t.Errorf("replay of a prefix: %v", r.Err)
	}
}

func TestReplayBeginsOnce(t *testing.T) {
	steps := engine.Run(rpLostUpdate, &rpNewest{}, engine.Config{}).Schedule
	rp := strategy.NewReplay(steps)
	rep := engine.Explore(rpLostUpdate, engine.Config{Strategy: rp, Schedules: 10})
	if rep.Schedules != 1 || rep.Stopped != "exhausted" || rep.Err != nil {
		t.Errorf("exploration with a replay: %d schedules, stopped: %s, err: %v", rep.Schedules, rep.Stopped, rep.Err)
	}
	if rp.Begin() {
		t.Errorf("Begin returned true a second time")
	}
	if p := strategy.NewReplay(nil).Params(); p["of"] != "" || p["decisions"] != "0" {
		t.Errorf("Params of a replay of an unknown strategy: %v", p)
	}
}
