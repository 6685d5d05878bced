package engine_test

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine"
)

// chHighest always runs the enabled goroutine with the highest id: the opposite of
// firstEnabled, to check outcomes that must not depend on the schedule.
func chHighest() *funcStrategy {
	return &funcStrategy{pick: func(d *engine.Decision) engine.GID { return d.EnabledAt(d.NumEnabled() - 1) }}
}

// chStrategies are strategies under which a schedule-independent outcome must hold.
func chStrategies() map[string]func() engine.Strategy {
	m := map[string]func() engine.Strategy{
		"first":   func() engine.Strategy { return firstEnabled() },
		"highest": func() engine.Strategy { return chHighest() },
	}
	for i := uint64(1); i <= 3; i++ {
		m[fmt.Sprint("random", i)] = func() engine.Strategy { return randomStrategy(i) }
	}
	return m
}

// chRun runs body once under s.
func chRun(t *testing.T, body func(*engine.T), s engine.Strategy) *engine.Result {
	t.Helper()
	res := engine.Run(body, s, engine.Config{})
	if res.Err != nil {
		t.Fatalf("execution error: %v", res.Err)
	}
	return res
}

// chNoBug explores body for n schedules with random strategies and fails on any bug.
func chNoBug(t *testing.T, body func(*engine.T), n int) {
	t.Helper()
	rep := engine.Explore(body, engine.Config{Strategy: randomStrategy(7), Schedules: n})
	if rep.First != nil {
		t.Fatalf("false bug after %d schedules: %v\n%v", rep.FirstAt, rep.First.Bug, rep.First.Bug.Logs)
	}
	if rep.Err != nil || rep.Schedules != n {
		t.Fatalf("exploration stopped: %s %v %v after %d schedules", rep.Stopped, rep.Err, rep.Limitations, rep.Schedules)
	}
}

// chWantBug checks that res has a bug of the kind whose message contains msg.
func chWantBug(t *testing.T, res *engine.Result, kind engine.BugKind, msg string) *engine.Bug {
	t.Helper()
	if res.Bug == nil {
		t.Fatalf("no bug, want %s %q", kind, msg)
	}
	if res.Bug.Kind != kind || !strings.Contains(res.Bug.Message, msg) {
		t.Fatalf("bug = %v, want %s %q", res.Bug, kind, msg)
	}
	return res.Bug
}

// realPanic returns the value f panics with.
func realPanic(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

func TestChanBuffered(t *testing.T) {
	res := chRun(t, func(t *engine.T) {
		ch := engine.MakeChan[int](3, "b.go:1")
		if n := engine.Cap(ch, "b.go:2"); n != 3 {
			t.Errorf("cap = %d", n)
		}
		for i := 1; i <= 3; i++ {
			engine.Send(ch, i, "b.go:3")
			if n := engine.Len(ch, "b.go:4"); n != i {
				t.Errorf("len = %d, want %d", n, i)
			}
		}
		for i := 1; i <= 3; i++ {
			if v := engine.Recv(ch, "b.go:5"); v != i {
				t.Errorf("recv = %d, want %d", v, i)
			}
		}
		if n := engine.Len(ch, "b.go:6"); n != 0 {
			t.Errorf("len = %d, want 0", n)
		}
		// Directional views are the same channel.
		var s chan<- int = ch
		var r <-chan int = ch
		engine.Send(s, 9, "b.go:7")
		if v, ok := engine.Recv2(r, "b.go:8"); v != 9 || !ok {
			t.Errorf("recv2 = %d, %v", v, ok)
		}
	}, firstEnabled())
	if res.Bug != nil {
		t.Fatal(res.Bug)
	}
	// Len and every send and receive are scheduling points.
	var ops []string
	for _, s := range res.Schedule {
		ops = append(ops, s.Op)
	}
	want := "send len send len send len recv recv recv len send recv"
	if got := strings.Join(ops, " "); got != want {
		t.Errorf("steps = %s\nwant    %s", got, want)
	}
}

func TestChanUnbufferedRendezvous(t *testing.T) {
	// The receiver sees what the sender wrote before sending, and the sender sees what the
	// receiver wrote before receiving only after a second exchange: no schedule breaks it.
	chNoBug(t, func(t *engine.T) {
		ch := engine.MakeChan[int](0, "u.go:1")
		ack := engine.MakeChan[struct{}](0, "u.go:2")
		x := 0
		engine.Go(func() {
			x = 1
			engine.Send(ch, 42, "u.go:3")
			engine.Recv(ack, "u.go:4")
			if x != 2 {
				t.Errorf("x = %d after ack", x)
			}
		}, "u.go:0")
		v := engine.Recv(ch, "u.go:5")
		if v != 42 || x != 1 {
			t.Errorf("v = %d, x = %d", v, x)
		}
		x = 2
		engine.Send(ack, struct{}{}, "u.go:6")
	}, 300)

	// Both orders of arrival are explored: the sender first (it blocks until the receiver
	// comes) and the receiver first.
	for name, mk := range chStrategies() {
		res := chRun(t, func(t *engine.T) {
			ch := engine.MakeChan[string](0, "u.go:1")
			engine.Go(func() { engine.Send(ch, "hi", "u.go:2") }, "u.go:0")
			if v := engine.Recv(ch, "u.go:3"); v != "hi" {
				t.Errorf("v = %q", v)
			}
		}, mk())
		if res.Bug != nil {
			t.Fatalf("%s: %v", name, res.Bug)
		}
	}
}

func TestChanPanics(t *testing.T) {
	var nilc chan int
	closed := make(chan int)
	close(closed)
	msgSendClosed := fmt.Sprint(realPanic(func() { closed <- 1 }))
	msgCloseClosed := fmt.Sprint(realPanic(func() { close(closed) }))
	msgCloseNil := fmt.Sprint(realPanic(func() { close(nilc) }))
	if msgSendClosed != "send on closed channel" || msgCloseClosed != "close of closed channel" || msgCloseNil != "close of nil channel" {
		t.Fatalf("runtime messages: %q %q %q", msgSendClosed, msgCloseClosed, msgCloseNil)
	}
	tests := []struct {
		name string
		body func(*engine.T)
		msg  string
	}{
		{"send on closed buffered", func(t *engine.T) {
			ch := engine.MakeChan[int](2, "p.go:1")
			engine.Close(ch, "p.go:2")
			engine.Send(ch, 1, "p.go:3")
		}, msgSendClosed},
		{"send on closed unbuffered", func(t *engine.T) {
			ch := engine.MakeChan[int](0, "p.go:1")
			engine.Close(ch, "p.go:2")
			engine.Send(ch, 1, "p.go:3")
		}, msgSendClosed},
		{"blocked sender woken by close", func(t *engine.T) {
			ch := engine.MakeChan[int](0, "p.go:1")
			engine.Go(func() { engine.Send(ch, 1, "p.go:2") }, "p.go:0")
			engine.Close(ch, "p.go:3")
			engine.Sleep(1, "p.go:4")
		}, msgSendClosed},
		{"blocked sender on full buffer woken by close", func(t *engine.T) {
			ch := engine.MakeChan[int](1, "p.go:1")
			engine.Send(ch, 1, "p.go:2")
			engine.Go(func() { engine.Send(ch, 2, "p.go:3") }, "p.go:0")
			engine.Close(ch, "p.go:4")
			engine.Sleep(1, "p.go:5")
		}, msgSendClosed},
		{"close of closed", func(t *engine.T) {
			ch := engine.MakeChan[int](0, "p.go:1")
			engine.Close(ch, "p.go:2")
			engine.Close(ch, "p.go:3")
		}, msgCloseClosed},
		{"close of nil", func(t *engine.T) {
			var ch chan int
			engine.Close(ch, "p.go:1")
		}, msgCloseNil},
		{"select send on closed", func(t *engine.T) {
			ch := engine.MakeChan[int](0, "p.go:1")
			engine.Close(ch, "p.go:2")
			engine.Select("p.go:3", false, engine.SendCase(ch, 1))
		}, msgSendClosed},
		{"foreign send on closed", func(t *engine.T) {
			engine.Send(closed, 1, "p.go:1")
		}, msgSendClosed},
		{"foreign close of closed", func(t *engine.T) {
			engine.Close(closed, "p.go:1")
		}, msgCloseClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for name, mk := range chStrategies() {
				res := chRun(t, tt.body, mk())
				bug := chWantBug(t, res, engine.Panic, tt.msg)
				if bug.Message != tt.msg {
					t.Errorf("%s: message %q, want %q", name, bug.Message, tt.msg)
				}
				if _, ok := bug.Value.(runtime.Error); !ok {
					t.Errorf("%s: panic value %T is not a runtime.Error", name, bug.Value)
				}
			}
		})
	}
}

func TestChanCloseReceives(t *testing.T) {
	// Buffered values are still received after close, then the zero value with ok == false.
	res := chRun(t, func(t *engine.T) {
		ch := engine.MakeChan[string](3, "c.go:1")
		engine.Send(ch, "a", "c.go:2")
		engine.Send(ch, "b", "c.go:3")
		engine.Close(ch, "c.go:4")
		var got []string
		for i := 0; i < 4; i++ {
			v, ok := engine.Recv2(ch, "c.go:5")
			got = append(got, fmt.Sprintf("%q:%v", v, ok))
		}
		if s := strings.Join(got, " "); s != `"a":true "b":true "":false "":false` {
			t.Errorf("got %s", s)
		}
		if n := engine.Len(ch, "c.go:6"); n != 0 {
			t.Errorf("len = %d", n)
		}
	}, firstEnabled())
	if res.Bug != nil {
		t.Fatal(res.Bug)
	}
	// Blocked receivers are all woken by close, with ok == false; whatever the schedule.
	for _, size := range []int{0, 2} {
		for name, mk := range chStrategies() {
			res := chRun(t, func(t *engine.T) {
				ch := engine.MakeChan[int](size, "c.go:1")
				done := engine.MakeChan[bool](0, "c.go:2")
				for i := 0; i < 3; i++ {
					engine.Go(func() {
						v, ok := engine.Recv2(ch, "c.go:3")
						engine.Send(done, v == 0 && !ok, "c.go:4")
					}, "c.go:0")
				}
				engine.Close(ch, "c.go:5")
				for i := 0; i < 3; i++ {
					if !engine.Recv(done, "c.go:6") {
						t.Errorf("a receiver woken by close got a value")
					}
				}
			}, mk())
			if res.Bug != nil {
				t.Fatalf("size %d, %s: %v", size, name, res.Bug)
			}
		}
	}
}

// TestChanFIFO checks that blocked goroutines are served in the order they started waiting,
// as Go's runtime serves them, under every strategy: each goroutine started with Go has
// reached its operation and blocked there before the next one starts (synctest.Wait, as a Go
// test would make sure of it: a goroutine's start is a step of its own, and the goroutines
// could otherwise arrive in any order).
func TestChanFIFO(t *testing.T) {
	tests := []struct {
		name string
		body func(*engine.T)
		all  bool // the outcome holds under every strategy (else only without preemption)
	}{
		{"blocked senders, full buffer", func(t *engine.T) {
			ch := engine.MakeChan[int](1, "f.go:1")
			engine.Send(ch, 0, "f.go:2")
			for i := 1; i <= 3; i++ {
				engine.Go(func() { engine.Send(ch, i, "f.go:3") }, "f.go:0")
				engine.SynctestWait("f.go:7")
			}
			for i := 0; i <= 3; i++ {
				if v := engine.Recv(ch, "f.go:4"); v != i {
					t.Errorf("received %d, want %d", v, i)
				}
			}
		}, true},
		{"blocked receivers, empty buffer", func(t *engine.T) {
			ch := engine.MakeChan[int](2, "f.go:1")
			got := engine.MakeChan[[2]int](3, "f.go:2")
			for i := 1; i <= 3; i++ {
				engine.Go(func() { engine.Send(got, [2]int{i, engine.Recv(ch, "f.go:3")}, "f.go:4") }, "f.go:0")
				engine.SynctestWait("f.go:7")
			}
			for i := 1; i <= 3; i++ {
				engine.Send(ch, i, "f.go:5")
			}
			for i := 1; i <= 3; i++ {
				if p := engine.Recv(got, "f.go:6"); p[0] != p[1] {
					t.Errorf("receiver %d got %d", p[0], p[1])
				}
			}
		}, true},
		{"blocked receivers, unbuffered", func(t *engine.T) {
			ch := engine.MakeChan[int](0, "f.go:1")
			got := engine.MakeChan[[2]int](3, "f.go:2")
			for i := 1; i <= 3; i++ {
				engine.Go(func() { engine.Send(got, [2]int{i, engine.Recv(ch, "f.go:3")}, "f.go:4") }, "f.go:0")
				engine.SynctestWait("f.go:7")
			}
			for i := 1; i <= 3; i++ {
				engine.Send(ch, i, "f.go:5")
			}
			for i := 1; i <= 3; i++ {
				if p := engine.Recv(got, "f.go:6"); p[0] != p[1] {
					t.Errorf("receiver %d got %d", p[0], p[1])
				}
			}
		}, false},
		{"blocked senders, unbuffered", func(t *engine.T) {
			ch := engine.MakeChan[int](0, "f.go:1")
			for i := 1; i <= 3; i++ {
				engine.Go(func() { engine.Send(ch, i, "f.go:3") }, "f.go:0")
				engine.SynctestWait("f.go:7")
			}
			for i := 1; i <= 3; i++ {
				if v := engine.Recv(ch, "f.go:4"); v != i {
					t.Errorf("received %d, want %d", v, i)
				}
			}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.all {
				// An unbuffered partner that has not blocked yet may overtake one that
				// has: waiting goroutines are enabled, and which one runs is the
				// strategy's choice. Without preemption the waiters are served in order.
				if res := chRun(t, tt.body, firstEnabled()); res.Bug != nil {
					t.Fatal(res.Bug)
				}
				return
			}
			for name, mk := range chStrategies() {
				if res := chRun(t, tt.body, mk()); res.Bug != nil {
					t.Fatalf("%s: %v", name, res.Bug)
				}
			}
			chNoBug(t, tt.body, 300)
		})
	}
}

func TestChanBlockingBugs(t *testing.T) {
	tests := []struct {
		name string
		body func(*engine.T)
		kind engine.BugKind
		msg  string
	}{
		{"unbuffered send with no receiver", func(t *engine.T) {
			ch := engine.MakeChan[int](0, "d.go:1")
			engine.Send(ch, 1, "d.go:2")
		}, engine.Deadlock, "G0 send at d.go:2"},
		{"receive with no sender", func(t *engine.T) {
			ch := engine.MakeChan[int](1, "d.go:1")
			engine.Recv(ch, "d.go:2")
		}, engine.Deadlock, "G0 recv at d.go:2"},
		{"send on full buffer", func(t *engine.T) {
			ch := engine.MakeChan[int](1, "d.go:1")
			engine.Send(ch, 1, "d.go:2")
			engine.Send(ch, 2, "d.go:3")
		}, engine.Deadlock, "G0 send at d.go:3"},
		{"send on nil", func(t *engine.T) {
			var ch chan int
			engine.Send(ch, 1, "d.go:1")
		}, engine.Deadlock, "G0 send at d.go:1"},
		{"receive from nil", func(t *engine.T) {
			var ch chan int
			engine.Recv(ch, "d.go:1")
		}, engine.Deadlock, "G0 recv at d.go:1"},
		{"leaked receiver", func(t *engine.T) {
			ch := engine.MakeChan[int](0, "d.go:1")
			engine.Go(func() { engine.Recv(ch, "d.go:2") }, "d.go:0")
		}, engine.Leak, "G1 recv at d.go:2"},
		{"leaked goroutine on nil channel", func(t *engine.T) {
			var ch chan int
			engine.Go(func() { engine.Send(ch, 1, "d.go:2") }, "d.go:0")
		}, engine.Leak, "G1 send at d.go:2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := chRun(t, tt.body, firstEnabled())
			chWantBug(t, res, tt.kind, tt.msg)
		})
	}
}

func TestChanForeign(t *testing.T) {
	// Channels made outside the execution are used for real, without blocking attempts.
	buf := make(chan int, 2)
	closed := make(chan struct{})
	close(closed)
	res := chRun(t, func(t *engine.T) {
		engine.Send(buf, 1, "x.go:1")
		engine.Send(buf, 2, "x.go:2")
		if n := engine.Len(buf, "x.go:3"); n != 2 {
			t.Errorf("len = %d", n)
		}
		done := engine.MakeChan[int](0, "x.go:4")
		engine.Go(func() {
			// Blocked until the main goroutine makes room.
			engine.Send(buf, 3, "x.go:5")
			engine.Send(done, 0, "x.go:6")
		}, "x.go:0")
		for i := 1; i <= 3; i++ {
			if v, ok := engine.Recv2(buf, "x.go:7"); v != i || !ok {
				t.Errorf("recv = %d %v, want %d", v, ok, i)
			}
		}
		engine.Recv(done, "x.go:8")
		if _, ok := engine.Recv2(closed, "x.go:9"); ok {
			t.Errorf("receive from closed foreign channel: ok")
		}
		if k := engine.Select("x.go:10", false, engine.RecvCase(buf), engine.RecvCase(closed)); k != 1 {
			t.Errorf("select took %d", k)
		}
	}, firstEnabled())
	if res.Bug != nil {
		t.Fatal(res.Bug)
	}
	if len(buf) != 0 {
		t.Errorf("%d values left", len(buf))
	}
	// A receiver blocked on a foreign channel is woken when a controlled goroutine closes it.
	stop := make(chan struct{})
	res = chRun(t, func(t *engine.T) {
		engine.Go(func() { engine.Close(stop, "x.go:1") }, "x.go:0")
		engine.Recv(stop, "x.go:2")
	}, chHighest())
	if res.Bug != nil {
		t.Fatal(res.Bug)
	}
	// A foreign channel nobody will send on deadlocks.
	never := make(chan int)
	res = chRun(t, func(t *engine.T) { engine.Recv(never, "x.go:1") }, firstEnabled())
	chWantBug(t, res, engine.Deadlock, "recv at x.go:1")
}

func TestChanRangeLoop(t *testing.T) {
	// for v := range ch, as the instrumenter writes it, under many schedules.
	for _, size := range []int{0, 1, 4} {
		chNoBug(t, func(t *engine.T) {
			ch := engine.MakeChan[int](size, "r.go:1")
			engine.Go(func() {
				for i := 1; i <= 5; i++ {
					engine.Send(ch, i, "r.go:2")
				}
				engine.Close(ch, "r.go:3")
			}, "r.go:0")
			sum, n := 0, 0
			for {
				v, ok := engine.Recv2(ch, "r.go:4")
				if !ok {
					break
				}
				if v != n+1 {
					t.Errorf("received %d after %d", v, n)
				}
				sum += v
				n++
			}
			if sum != 15 {
				t.Errorf("sum = %d", sum)
			}
		}, 200)
	}
}

func TestChanPipeline(t *testing.T) {
	// producer -> 2 squarers -> collector, with a done channel; explored with random schedules:
	// no false deadlock, leak or lost value.
	chNoBug(t, func(t *engine.T) {
		src := engine.MakeChan[int](0, "pl.go:1")
		sq := engine.MakeChan[int](2, "pl.go:2")
		done := engine.MakeChan[struct{}](0, "pl.go:3")
		engine.Go(func() {
			for i := 1; i <= 6; i++ {
				engine.Send(src, i, "pl.go:4")
			}
			engine.Close(src, "pl.go:5")
		}, "pl.go:0")
		for w := 0; w < 2; w++ {
			engine.Go(func() {
				for {
					v, ok := engine.Recv2(src, "pl.go:6")
					if !ok {
						break
					}
					engine.Send(sq, v*v, "pl.go:7")
				}
				engine.Send(done, struct{}{}, "pl.go:8")
			}, "pl.go:0")
		}
		engine.Go(func() {
			engine.Recv(done, "pl.go:9")
			engine.Recv(done, "pl.go:10")
			engine.Close(sq, "pl.go:11")
		}, "pl.go:0")
		sum := 0
		for {
			v, ok := engine.Recv2(sq, "pl.go:12")
			if !ok {
				break
			}
			sum += v
		}
		if sum != 91 {
			t.Errorf("sum = %d, want 91", sum)
		}
	}, 2000)
}

func TestChanOutsideExecution(t *testing.T) {
	ch := engine.MakeChan[int](2, "o.go:1")
	engine.Send(ch, 1, "o.go:2")
	if n := engine.Len(ch, "o.go:3"); n != 1 {
		t.Errorf("len = %d", n)
	}
	if engine.Cap(ch, "o.go:4") != 2 {
		t.Errorf("cap")
	}
	if v := engine.Recv(ch, "o.go:5"); v != 1 {
		t.Errorf("recv = %d", v)
	}
	r := engine.RecvCase(ch)
	if k := engine.Select("o.go:6", true, r); k != -1 {
		t.Errorf("select on empty channel took %d", k)
	}
	if k := engine.Select("o.go:7", false, engine.SendCase(ch, 5), engine.RecvCase[int](nil)); k != 0 {
		t.Errorf("select took %d", k)
	}
	if k := engine.Select("o.go:8", false, r); k != 0 || r.Value() != 5 || !r.OK() {
		t.Errorf("select took %d, %d %v", k, r.Value(), r.OK())
	}
	engine.Close(ch, "o.go:9")
	if v, ok := engine.Recv2(ch, "o.go:10"); v != 0 || ok {
		t.Errorf("recv2 after close = %d %v", v, ok)
	}
	if p := realPanic(func() { engine.Send(ch, 1, "o.go:11") }); fmt.Sprint(p) != "send on closed channel" {
		t.Errorf("panic %v", p)
	}
}

func TestChanForeignUnbuffered(t *testing.T) {
	// Two controlled goroutines meet on an unbuffered channel made outside the execution
	// (a package-level variable, say): the engine matches them, as no real attempt can.
	ch := make(chan int)
	quit := make(chan struct{})
	chNoBug(t, func(t *engine.T) {
		engine.Go(func() {
			for i := 1; i <= 3; i++ {
				engine.Send(ch, i, "fu.go:1")
			}
			engine.Recv(quit, "fu.go:2")
		}, "fu.go:0")
		for i := 1; i <= 3; i++ {
			r := engine.RecvCase(ch)
			if k := engine.Select("fu.go:3", false, r, engine.RecvCase[int](nil)); k != 0 || r.Value() != i {
				t.Errorf("select %d: %d", k, r.Value())
			}
		}
		engine.Send(quit, struct{}{}, "fu.go:4")
	}, 300)
	// Nobody on the other side: a deadlock, not a hang.
	res := chRun(t, func(t *engine.T) { engine.Send(ch, 1, "fu.go:1") }, firstEnabled())
	chWantBug(t, res, engine.Deadlock, "G0 send at fu.go:1")
}

func TestChanLenByReflection(t *testing.T) {
	// What reads a channel by reflection (testify's assert.Len) sees its buffer, as in Go.
	rep := engine.Explore(func(et *engine.T) {
		ch := engine.MakeChan[int](2, "r.go:1")
		engine.Send(ch, 7, "r.go:2")
		engine.Send(ch, 8, "r.go:3")
		if n := reflect.ValueOf(ch).Len(); n != 2 {
			et.Errorf("reflect Len after two sends = %d, want 2", n)
		}
		if v := engine.Recv(ch, "r.go:4"); v != 7 {
			et.Errorf("received %d, want 7", v)
		}
		if n := reflect.ValueOf(ch).Len(); n != 1 {
			et.Errorf("reflect Len after a receive = %d, want 1", n)
		}
	}, engine.Config{Strategy: randomStrategy(1), Schedules: 3})
	if rep.First != nil {
		t.Fatalf("%v\n%v", rep.First.Bug, rep.First.Bug.Logs)
	}
}
