package control

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/interleave-dev/interleave/engine"
)

func TestParseStacks(t *testing.T) {
	const text = `goroutine 21 [running]:
github.com/interleave-dev/interleave/engine/control.(*debugStrategy).Pick(0xc000130000, 0xc000134018)
	/src/interleave/engine/control/strategy.go:400 +0x45
github.com/interleave-dev/interleave/engine.(*Exec).decide(0xc000134000)
	/src/interleave/engine/exec.go:380 +0x1a5
github.com/interleave-dev/interleave/engine.(*Exec).yield(0xc000134000, 0xc00014a000?)
	/src/interleave/engine/exec.go:312 +0x45
github.com/interleave-dev/interleave/engine.Lock(0xc000118008, {0x5f1a2e, 0xc})
	/src/interleave/engine/mutex.go:28 +0xd5
example.com/bank.Transfer(0xc000118000, 0xc000118020, 0x1e)
	/home/me/bank/bank.go:42 +0x6b
example.com/bank.__ilTestTransfer.func1()
	/home/me/bank/bank_test.go:18 +0x3e
created by github.com/interleave-dev/interleave/engine.(*Exec).spawn in goroutine 20
	/src/interleave/engine/exec.go:520 +0x1c5

goroutine 22 [chan receive]:
github.com/interleave-dev/interleave/engine.(*Exec).wait(0xc000134000, 0xc00014a0d0)
	/src/interleave/engine/exec.go:331 +0x2e
github.com/interleave-dev/interleave/engine.(*Exec).switchTo(0xc000134000, 0xc00014a0d0, 0xc00014a000)
	/src/interleave/engine/exec.go:325 +0x65
...additional frames elided...
example.com/bank.helper(...)
	/home/me/bank/bank.go:60
example.com/bank.__ilTestTransfer.func2()
	/home/me/bank/bank_test.go:24 +0x3e

goroutine 3 [select]:
runtime.gopark(0x0?, 0x0?, 0x0?, 0x0?, 0x0?)
	/usr/local/go/src/runtime/proc.go:460 +0xce
`
	got := parseStacks(text)
	want := map[uintptr]goroutineStack{
		0xc00014a000: {goid: 21, frames: []engine.Frame{
			{Func: "example.com/bank.Transfer", File: "/home/me/bank/bank.go", Line: 42},
			{Func: "example.com/bank.TestTransfer.func1", File: "/home/me/bank/bank_test.go", Line: 18},
		}},
		0xc00014a0d0: {goid: 22, frames: []engine.Frame{
			{Func: "example.com/bank.helper", File: "/home/me/bank/bank.go", Line: 60},
			{Func: "example.com/bank.TestTransfer.func2", File: "/home/me/bank/bank_test.go", Line: 24},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseStacks:\n got %+v\nwant %+v", got, want)
	}
}

func TestLineOf(t *testing.T) {
	for in, want := range map[string]string{"bank.go:42:2": "bank.go:42", "a/b.go:7:11": "a/b.go:7", "bank.go:42": "bank.go:42", "": ""} {
		if got := lineOf(in); got != want {
			t.Errorf("lineOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// fakeAdapter is the adapter's side of the control protocol, for testing the test process's
// side without an adapter.
type fakeAdapter struct {
	t   *testing.T
	enc *json.Encoder
	dec *json.Decoder
}

func (a *fakeAdapter) send(c Command) {
	if err := a.enc.Encode(c); err != nil {
		a.t.Error(err)
	}
}

func (a *fakeAdapter) reply(kind string) *Reply {
	var r Reply
	if err := a.dec.Decode(&r); err != nil {
		a.t.Fatalf("read reply: %v", err)
	}
	if r.Kind != kind {
		a.t.Fatalf("reply %q (%s), want %q", r.Kind, r.Error, kind)
	}
	return &r
}

// TestDebugSession drives debugTest through the control protocol: pause at a step, pause a
// running execution, step, replace the execution, refuse a goroutine that cannot run, quit.
func TestDebugSession(t *testing.T) {
	ln, addr := listenAsAdapter(t)
	defer ln.Close()
	body := func(*engine.T) {
		var mu sync.Mutex
		for i := 0; i < 2; i++ {
			engine.Go(func() {
				for j := 0; j < 3; j++ {
					engine.Lock(&mu, "x.go:10:3")
					engine.Unlock(&mu, "x.go:11:3")
				}
			}, "x.go:8:2")
		}
	}
	done := make(chan struct{})
	go func() {
		// debugTest calls t.Fatalf only when it cannot connect, which the listener rules out.
		defer close(done)
		Serve(t, body, addr)
	}()
	conn, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	a := &fakeAdapter{t: t, enc: json.NewEncoder(conn), dec: json.NewDecoder(conn)}
	a.reply("hello")
	a.send(Command{Cmd: "run", Stop: 3, ExceptionAt: -1, G: -1})
	st := a.reply("paused").State
	if st.Step != 3 || st.Reason != "step" || len(st.Trace) != 3 || len(st.Goroutines) != 3 {
		t.Fatalf("run to step 3: %+v", st)
	}
	// Each decision comes with the goroutines enabled at it (the timeline's preemptions and
	// blocked spans): G0 alone at first, then G0 and the goroutine it started.
	if len(st.Info) != 3 || !slices.Equal(st.Info[0].Enabled, []int{0}) || !slices.Equal(st.Info[1].Enabled, []int{0, 1}) {
		t.Fatalf("run to step 3: info %+v", st.Info)
	}
	// A pause that arrives before continue stops at the next point.
	a.send(Command{Cmd: "pause", G: -1})
	a.send(Command{Cmd: "continue", G: -1})
	if st = a.reply("paused").State; st.Step != 4 || st.Reason != "pause" {
		t.Fatalf("pause: %+v", st)
	}
	// G0 has returned: it cannot be scheduled.
	a.send(Command{Cmd: "step", G: 0})
	if r := a.reply("error"); !strings.Contains(r.Error, "G0 is not enabled") {
		t.Fatalf("step G0: %q", r.Error)
	}
	a.send(Command{Cmd: "step", G: -1})
	if st = a.reply("paused").State; st.Step != 5 || st.TraceFrom != 4 || len(st.Trace) != 1 {
		t.Fatalf("step: %+v", st)
	}
	// Breakpoints stop a continue at the next unlock.
	a.send(Command{Cmd: "continue", G: -1, Breakpoints: []string{"x.go:11"}})
	if st = a.reply("paused").State; st.Reason != "breakpoint" || goroutineOp(st, st.Next) != "unlock" {
		t.Fatalf("breakpoint: %+v", st)
	}
	a.send(Command{Cmd: "run", Stop: 1, ExceptionAt: -1, G: -1})
	if st = a.reply("paused").State; st.Step != 1 || st.TraceFrom != 0 {
		t.Fatalf("a new run: %+v", st)
	}
	a.send(Command{Cmd: "continue", G: -1})
	if st = a.reply("ended").State; !st.Ended || st.Bug != nil || st.Step < 13 {
		t.Fatalf("to the end: %+v", st)
	}
	// The ended execution's decisions come with their info too; every lock and unlock acts
	// on the one mutex, which has one number.
	if len(st.Info) != len(st.Trace) {
		t.Fatalf("to the end: %d decisions, %d infos", len(st.Trace), len(st.Info))
	}
	objs := map[int]bool{}
	for i, d := range st.Trace {
		if d.Op == "lock" || d.Op == "unlock" {
			objs[st.Info[i].Obj] = true
		}
		if !slices.Contains(st.Info[i].Enabled, int(d.G)) {
			t.Errorf("decision %d: G%d ran, enabled %v", st.TraceFrom+i, d.G, st.Info[i].Enabled)
		}
	}
	if len(objs) != 1 || objs[0] {
		t.Errorf("the mutex's numbers: %v, want one, not 0", objs)
	}
	// A step bound ends the execution. The body returns at once, leaving its goroutines
	// running: reaching the bound after the test returned is not a livelock, as go test does
	// not fail a test whose goroutines outlive it (engine/background.go).
	a.send(Command{Cmd: "run", Stop: -1, ExceptionAt: -1, G: -1, MaxSteps: 6})
	if st = a.reply("ended").State; st.Bug != nil || st.Step != 6 {
		t.Fatalf("a step bound of 6: %+v", st)
	}
	// Once the schedule runs out, the then strategy picks.
	a.send(Command{Cmd: "run", Stop: -1, ExceptionAt: -1, G: -1, Then: "random", Seed: 3})
	if st = a.reply("ended").State; st.Bug != nil || st.Err != "" || st.Step < 13 {
		t.Fatalf("then random: %+v", st)
	}
	a.send(Command{Cmd: "run", Stop: -1, ExceptionAt: -1, G: -1, Then: "nope"})
	if st = a.reply("ended").State; !strings.Contains(st.Err, `unknown strategy "nope"`) {
		t.Fatalf("then nope: %+v", st)
	}
	a.send(Command{Cmd: "quit", G: -1})
	<-done
}

func goroutineOp(st *State, g int) string {
	for _, x := range st.Goroutines {
		if x.ID == g {
			return x.Op
		}
	}
	return ""
}

// TestCommandConfigStrictLeaks: the debugger's strict-leaks reaches the engine's
// configuration, so that its explorations and runs give the verdicts interleave test
// -strict-leaks gives.
func TestCommandConfigStrictLeaks(t *testing.T) {
	var c Command
	if err := json.Unmarshal([]byte(`{"cmd": "explore", "strictLeaks": true, "g": -1}`), &c); err != nil {
		t.Fatal(err)
	}
	cfg, err := c.config("TestX")
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.StrictLeaks {
		t.Errorf("config %+v: want StrictLeaks", cfg)
	}
}
