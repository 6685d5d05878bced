package engine_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// sfDeadlock is the lock-order inversion: G1 locks a then b, G0 b then a.
func sfDeadlock(t *engine.T) {
	var a, b sync.Mutex
	engine.Go(func() {
		engine.Lock(&a, "sf.go:1")
		engine.Lock(&b, "sf.go:2")
		engine.Unlock(&b, "sf.go:3")
		engine.Unlock(&a, "sf.go:4")
	}, "sf.go:0")
	engine.Lock(&b, "sf.go:5")
	engine.Lock(&a, "sf.go:6")
	engine.Unlock(&a, "sf.go:7")
	engine.Unlock(&b, "sf.go:8")
}

var sfInfo = engine.TestInfo{Module: "m", Package: "m/p", Name: "TestDeadlock", Build: "b1"}

func sfFindDeadlock(t *testing.T) (*engine.Report, *schedule.File) {
	t.Helper()
	var f *schedule.File
	s := randomStrategy(2)
	rep := engine.Explore(sfDeadlock, engine.Config{Strategy: s, Schedules: 500, OnExecution: func(n int, r *engine.Result) {
		if r.Bug != nil && f == nil {
			f = engine.NewScheduleFile(r, sfInfo, s, n)
		}
	}})
	if rep.First == nil || rep.First.Bug.Kind != engine.Deadlock || f == nil {
		t.Fatalf("no deadlock found: %+v", rep)
	}
	return rep, f
}

func TestNewScheduleFile(t *testing.T) {
	rep, f := sfFindDeadlock(t)
	r := rep.First
	if f.Test != sfInfo || f.Execution != rep.FirstAt || f.Strategy.Name != "test" {
		t.Errorf("file header: test %+v, execution %d (want %d), strategy %+v", f.Test, f.Execution, rep.FirstAt, f.Strategy)
	}
	if f.Result.Steps != r.Steps || f.Result.Goroutines != 2 || f.Result.Fingerprint != r.Fingerprint {
		t.Errorf("file result %+v, execution had %d steps, fingerprint %x", f.Result, r.Steps, r.Fingerprint)
	}
	if len(f.Steps) != len(r.Schedule) || f.RunSteps() != r.Steps {
		t.Errorf("file has %d decisions (%d steps), the execution %d (%d steps)", len(f.Steps), f.RunSteps(), len(r.Schedule), r.Steps)
	}
	b := f.Bug
	if b == nil || b.Kind != "deadlock" || b.Message != r.Bug.Message || b.Step != r.Bug.Step || b.G != int32(r.Bug.G) || b.Pos != r.Bug.Pos {
		t.Fatalf("file bug %+v, execution's %v", b, r.Bug)
	}
	if len(b.Goroutines) != 2 {
		t.Fatalf("file has %d goroutine states, want 2", len(b.Goroutines))
	}
	for i, g := range b.Goroutines {
		want := r.Bug.Goroutines[i]
		if g.ID != int32(i) || g.Status != "blocked" || g.Op != "lock" || g.Pos != want.Pending.Pos || len(g.Stack) == 0 {
			t.Errorf("goroutine %d: %+v, want %+v", i, g, want)
		}
	}
	if b.Goroutines[0].Parent != -1 || b.Goroutines[1].Parent != 0 || b.Goroutines[1].Created != "sf.go:0" {
		t.Errorf("goroutine parents: %+v", b.Goroutines)
	}
	// What NewScheduleFile makes, Encode accepts and Decode gives back.
	var buf bytes.Buffer
	if err := f.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	back, err := schedule.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := back.Check(sfInfo); err != nil {
		t.Error(err)
	}
	if err := engine.CheckReproduced(back, r); err != nil {
		t.Errorf("the recorded result does not match its own file: %v", err)
	}
	t.Logf("schedule file:\n%s", text)
}

func TestNewScheduleFileWithoutBug(t *testing.T) {
	r := engine.Run(func(t *engine.T) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		engine.Lock(&mu, "ok.go:1")
		engine.Unlock(&mu, "ok.go:2")
		engine.WGAdd(&wg, 1, "ok.go:3")
		engine.WGDone(&wg, "ok.go:4")
	}, firstEnabled(), engine.Config{})
	f := engine.NewScheduleFile(r, sfInfo, nil, 0)
	if f.Bug != nil || len(f.Steps) != 4 || f.Strategy.Name != "" {
		t.Fatalf("file %+v", f)
	}
	want := []schedule.Step{
		{Kind: schedule.Run, G: 0, Op: "lock", Pos: "ok.go:1"},
		{Kind: schedule.Run, G: 0, Op: "unlock", Pos: "ok.go:2"},
		{Kind: schedule.Run, G: 0, Op: "wg.add", Pos: "ok.go:3"},
		{Kind: schedule.Run, G: 0, Op: "wg.done", Pos: "ok.go:4"},
	}
	for i := range want {
		if f.Steps[i] != want[i] {
			t.Errorf("step %d = %+v, want %+v", i+1, f.Steps[i], want[i])
		}
	}
	if err := engine.CheckReproduced(f, r); err != nil {
		t.Error(err)
	}
}

func TestCheckReproduced(t *testing.T) {
	rep, f := sfFindDeadlock(t)
	for _, tc := range []struct {
		name   string
		mutate func(r *engine.Result)
		want   string // substring of the error; "" for none
	}{
		{"same", func(r *engine.Result) {}, ""},
		{"passed", func(r *engine.Result) { r.Bug = nil }, "did not reproduce the bug: the schedule has deadlock at step"},
		{"other step", func(r *engine.Result) { r.Bug.Step++ }, "found another bug: step"},
		{"other kind", func(r *engine.Result) { r.Bug.Kind = engine.Panic }, "kind panic, not deadlock"},
		{"other position", func(r *engine.Result) { r.Bug.Pos = "elsewhere.go:1" }, "position elsewhere.go:1, not sf.go:"},
		// A bug in a test of a module in the module cache: the exploring process had the
		// absolute position, the replaying one the one relative to the module's root.
		{"absolute position of the same line", func(r *engine.Result) { r.Bug.Pos = "/root/go/pkg/mod/example.com/m@v1.0.0/" + r.Bug.Pos }, ""},
		{"absolute position of another file", func(r *engine.Result) { r.Bug.Pos = "/root/go/pkg/mod/example.com/m@v1.0.0/x" + r.Bug.Pos }, "position /root/go/pkg/mod/example.com/m@v1.0.0/xsf.go:"},
		// The message may hold what differs between processes (a stack trace through the
		// engine, an address): the same kind at the same step and position is the same bug.
		{"other message", func(r *engine.Result) { r.Bug.Message = "boom" }, ""},
		{"diverged", func(r *engine.Result) { r.Err = errString("replay diverged at step 3: x, but y") }, "replay diverged at step 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := *rep.First
			bug := *r.Bug
			r.Bug = &bug
			tc.mutate(&r)
			err := engine.CheckReproduced(f, &r)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("CheckReproduced: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("CheckReproduced: %v, want an error saying %q", err, tc.want)
			}
		})
	}
	f.Bug = nil
	if err := engine.CheckReproduced(f, rep.First); err == nil || !strings.Contains(err.Error(), "the schedule passed, but the replay found deadlock") {
		t.Errorf("CheckReproduced of a passing file: %v", err)
	}
}

type errString string

func (e errString) Error() string { return string(e) }
