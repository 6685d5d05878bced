package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
)

// tmStrategies are strategies under which a schedule-independent outcome must hold.
func tmStrategies() map[string]func() engine.Strategy {
	m := map[string]func() engine.Strategy{
		"first": func() engine.Strategy { return firstEnabled() },
		"last": func() engine.Strategy {
			return &funcStrategy{pick: func(d *engine.Decision) engine.GID { return d.EnabledAt(d.NumEnabled() - 1) }}
		},
	}
	for i := uint64(1); i <= 4; i++ {
		m[fmt.Sprint("random", i)] = func() engine.Strategy { return randomStrategy(i) }
	}
	return m
}

// tmRun runs body once under s and returns its result; the strategy must not fail.
func tmRun(t *testing.T, body func(*engine.T), s engine.Strategy) *engine.Result {
	t.Helper()
	res := engine.Run(body, s, engine.Config{})
	if res.Err != nil || res.Limitation != nil {
		t.Fatalf("execution did not complete: %v %v", res.Err, res.Limitation)
	}
	return res
}

// tmAll runs body once under every strategy of tmStrategies and fails on any bug.
func tmAll(t *testing.T, body func(*engine.T)) {
	t.Helper()
	for name, mk := range tmStrategies() {
		if res := tmRun(t, body, mk()); res.Bug != nil {
			t.Fatalf("%s: %v\nlogs: %v", name, res.Bug, res.Bug.Logs)
		}
	}
}

// tmExplore explores body with a random strategy for n schedules and fails on any bug.
func tmExplore(t *testing.T, body func(*engine.T), n int) {
	t.Helper()
	rep := engine.Explore(body, engine.Config{Strategy: randomStrategy(11), Schedules: n})
	if rep.First != nil {
		t.Fatalf("bug after %d schedules: %v\nlogs: %v", rep.FirstAt, rep.First.Bug, rep.First.Bug.Logs)
	}
	if rep.Err != nil || rep.Schedules != n {
		t.Fatalf("exploration stopped: %s %v %v after %d schedules", rep.Stopped, rep.Err, rep.Limitations, rep.Schedules)
	}
}

// tmWantBug checks that res has a bug of the given kind whose message contains msg.
func tmWantBug(t *testing.T, res *engine.Result, kind engine.BugKind, msg string) {
	t.Helper()
	if res.Bug == nil {
		t.Fatalf("no bug, want %s %q", kind, msg)
	}
	if res.Bug.Kind != kind || !strings.Contains(res.Bug.Message, msg) {
		t.Fatalf("bug = %v, want %s %q", res.Bug, kind, msg)
	}
}

// at is the virtual time d after the start of an execution.
func at(d time.Duration) time.Time { return engine.Epoch.Add(d) }

// tmPoll reports whether a receive from ch would proceed now, without blocking: a select
// with a default.
func tmPoll[T any](ch <-chan T, pos string) (T, bool) {
	c := engine.RecvCase(ch)
	if engine.Select(pos, true, c) == 0 {
		return c.Value(), true
	}
	var zero T
	return zero, false
}

func TestTimeSleepOrder(t *testing.T) {
	// Sleepers wake in the order of their deadlines, each exactly at its deadline, whatever
	// the schedule; equal deadlines both wake at that instant.
	sleeps := []time.Duration{3 * time.Second, time.Second, 2 * time.Second, time.Second, 0}
	var order []int
	body := func(t *engine.T) {
		order = order[:0]
		done := engine.MakeChan[int](len(sleeps), "s.go:1")
		for i, d := range sleeps {
			engine.Go(func() {
				engine.Sleep(d, "s.go:2")
				if now := engine.Now(); !near(now, at(d)) {
					t.Errorf("sleeper %d woke at %v, want %v", i, now, at(d))
				}
				order = append(order, i)
				engine.Send(done, i, "s.go:3")
			}, "s.go:0")
		}
		for range sleeps {
			engine.Recv(done, "s.go:4")
		}
		for k := 1; k < len(order); k++ {
			if sleeps[order[k-1]] > sleeps[order[k]] {
				t.Errorf("wake order %v: a longer sleep woke first", order)
			}
		}
	}
	tmAll(t, body)
	tmExplore(t, body, 200)

	// With equal deadlines and no preemption, sleepers wake in the order they went to sleep.
	res := tmRun(t, func(t *engine.T) {
		order = order[:0]
		done := engine.MakeChan[int](3, "s.go:1")
		for i := range 3 {
			engine.Go(func() {
				engine.Sleep(time.Minute, "s.go:2")
				order = append(order, i)
				engine.Send(done, i, "s.go:3")
			}, "s.go:0")
		}
		for range 3 {
			engine.Recv(done, "s.go:4")
		}
	}, firstEnabled())
	if res.Bug != nil {
		t.Fatal(res.Bug)
	}
	if fmt.Sprint(order) != "[0 1 2]" {
		t.Errorf("equal deadlines woke in order %v, want [0 1 2]", order)
	}
}

func TestTimePassesWhileRunning(t *testing.T) {
	// Time passes a little at every step and every reading of the clock (clock.go): two
	// readings differ, a short run moves the clock by nanoseconds and fires no timer early,
	// and a loop bounded only by a deadline ends.
	tests := []struct {
		name string
		body func(t *engine.T)
	}{
		{"readings differ", func(t *engine.T) {
			a := engine.Now()
			b := engine.Now()
			if !b.After(a) || engine.Since(a) <= 0 {
				t.Errorf("two readings: %v then %v", a, b)
			}
		}},
		{"a short run fires no timer early", func(t *engine.T) {
			fired := false
			engine.Go(func() {
				engine.Sleep(time.Millisecond, "f.go:1")
				fired = true
			}, "f.go:0")
			for range 1000 {
				engine.Gosched("f.go:2")
			}
			if fired {
				t.Errorf("a 1ms sleep ended during 1,000 steps, at %v", engine.Now())
			}
			if d := engine.Since(engine.Epoch); d > 10*time.Microsecond {
				t.Errorf("1,000 steps took %v of virtual time", d)
			}
		}},
		{"a loop bounded by WithTimeout ends", func(t *engine.T) {
			ctx, cancel := engine.WithTimeout(context.Background(), time.Second, "f.go:3")
			defer cancel()
			for ctx.Err() == nil {
				engine.Gosched("f.go:4")
			}
			if now := engine.Now(); now.Before(at(time.Second)) {
				t.Errorf("the deadline came at %v", now)
			}
		}},
		{"a loop bounded by AfterFunc ends", func(t *engine.T) {
			var stop atomic.Bool
			engine.AfterFunc(time.Minute, func() { stop.Store(true) }, "f.go:5")
			for !stop.Load() {
				engine.Gosched("f.go:6")
			}
		}},
		{"a short timer fires while another goroutine runs", func(t *engine.T) {
			c := engine.After(time.Nanosecond, "f.go:8")
			stop := false
			engine.Go(func() {
				for !stop {
					engine.Gosched("f.go:9")
				}
			}, "f.go:10")
			for { // polls with select-default: time passes anyway
				if _, ok := tmPoll(c, "f.go:11"); ok {
					break
				}
			}
			stop = true
		}},
		{"a loop bounded by a deadline ends", func(t *engine.T) {
			deadline := engine.Now().Add(10 * time.Second)
			for engine.Now().Before(deadline) {
				engine.Gosched("f.go:7")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tmExplore(t, tt.body, 20) })
	}
}

// TestWorkDoesNotRunTheClockAway: the time a step takes stops doubling at workStepTime after a
// step that changes something, unless the program looked at the time lately (clock.go), so
// that goroutines that work — here 80,000 locks and unlocks, without ever all blocking — see
// milliseconds pass, not hours (a test waiting for them with a timeout, or checking how long
// they took, failed falsely), while a loop that only polls — a select with a default, here —
// or that works until a deadline it checks still sees its deadline come, and a sleep while
// others work still ends.
func TestWorkDoesNotRunTheClockAway(t *testing.T) {
	tests := []struct {
		name string
		body func(t *engine.T, done *int)
	}{
		{"80,000 locks and unlocks", func(t *engine.T, done *int) {
			var mu sync.Mutex
			var wg sync.WaitGroup
			engine.WGAdd(&wg, 2, "w.go:4")
			for range 2 {
				engine.Go(func() {
					for range 20000 {
						engine.Lock(&mu, "w.go:1")
						engine.Unlock(&mu, "w.go:2")
					}
					engine.WGDone(&wg, "w.go:5")
				}, "w.go:3")
			}
			engine.WGWait(&wg, "w.go:12")
			if d := engine.Since(engine.Epoch); d > 100*time.Millisecond {
				t.Errorf("80,000 locks and unlocks took %v of virtual time", d)
			}
			*done++
		}},
		{"a select-default loop bounded by WithTimeout", func(t *engine.T, done *int) {
			ctx, cancel := engine.WithTimeout(context.Background(), time.Second, "w.go:6")
			defer cancel()
			for {
				if _, ok := tmPoll(ctx.Done(), "w.go:7"); ok {
					break
				}
			}
			*done++
		}},
		{"work until a context's deadline", func(t *engine.T, done *int) {
			ctx, cancel := engine.WithTimeout(context.Background(), 100*time.Millisecond, "w.go:13")
			defer cancel()
			var mu sync.Mutex
			for ctx.Err() == nil {
				engine.Lock(&mu, "w.go:14")
				engine.Unlock(&mu, "w.go:15")
			}
			*done++
		}},
		{"work until a deadline read from the clock", func(t *engine.T, done *int) {
			deadline := engine.Now().Add(5 * time.Second)
			var mu sync.Mutex
			for engine.Now().Before(deadline) {
				engine.Lock(&mu, "w.go:16")
				engine.Unlock(&mu, "w.go:17")
			}
			*done++
		}},
		{"a sleep while others work", func(t *engine.T, done *int) {
			var mu sync.Mutex
			var stop atomic.Bool
			n := 0
			engine.Go(func() {
				for !stop.Load() {
					engine.Lock(&mu, "w.go:8")
					n++
					engine.Unlock(&mu, "w.go:9")
				}
			}, "w.go:10")
			engine.Sleep(5*time.Millisecond, "w.go:11")
			stop.Store(true)
			*done++
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := 0
			tmExplore(t, func(et *engine.T) { tt.body(et, &done) }, 3)
			if done != 3 {
				t.Errorf("%d of 3 executions ended (the others at the step bound)", done)
			}
		})
	}
}

func TestTimerDelivers(t *testing.T) {
	tmAll(t, func(t *engine.T) {
		c := engine.After(5*time.Second, "d.go:1")
		tm := engine.NewTimer(2*time.Second, "d.go:2")
		if v := engine.Recv(tm.C, "d.go:3"); !near(v, at(2*time.Second)) {
			t.Errorf("timer value %v, want %v", v, at(2*time.Second))
		}
		if now := engine.Now(); !near(now, at(2*time.Second)) {
			t.Errorf("now = %v after the timer", now)
		}
		if _, ok := tmPoll(c, "d.go:4"); ok {
			t.Errorf("After(5s) delivered at 2s")
		}
		if v := engine.Recv(c, "d.go:5"); !near(v, at(5*time.Second)) || !near(engine.Now(), v) {
			t.Errorf("After value %v, now %v, want %v", v, engine.Now(), at(5*time.Second))
		}
		// A timer fires once.
		engine.Sleep(time.Hour, "d.go:6")
		if _, ok := tmPoll(tm.C, "d.go:7"); ok {
			t.Errorf("a timer delivered twice")
		}
		// A non-positive duration fires at once (at the next clock advance).
		if v := engine.Recv(engine.After(-time.Second, "d.go:8"), "d.go:9"); !near(v, at(time.Hour+5*time.Second)) {
			t.Errorf("After(-1s) value %v", v)
		}
	})
}

func TestTimerStopReset(t *testing.T) {
	tests := []struct {
		name string
		body func(t *engine.T)
	}{
		{"stop before firing", func(t *engine.T) {
			tm := engine.NewTimer(time.Second, "t.go:1")
			if !engine.TimerStop(tm, "t.go:2") {
				t.Errorf("Stop of a pending timer = false")
			}
			engine.Sleep(time.Minute, "t.go:3")
			if _, ok := tmPoll(tm.C, "t.go:4"); ok {
				t.Errorf("a stopped timer delivered")
			}
			if engine.TimerStop(tm, "t.go:5") {
				t.Errorf("second Stop = true")
			}
		}},
		{"stop after receiving", func(t *engine.T) {
			tm := engine.NewTimer(time.Second, "t.go:1")
			engine.Recv(tm.C, "t.go:2")
			if engine.TimerStop(tm, "t.go:3") {
				t.Errorf("Stop after the value was received = true")
			}
		}},
		{"stop after firing, value not received", func(t *engine.T) {
			// Go 1.23: the channel is synchronous, so the timer is still active until its value
			// is received: Stop returns true and no stale value is left.
			tm := engine.NewTimer(time.Second, "t.go:1")
			engine.Sleep(2*time.Second, "t.go:2")
			if !engine.TimerStop(tm, "t.go:3") {
				t.Errorf("Stop of a fired, unreceived timer = false")
			}
			if v, ok := tmPoll(tm.C, "t.go:4"); ok {
				t.Errorf("stale value %v after Stop", v)
			}
		}},
		{"reset pending", func(t *engine.T) {
			tm := engine.NewTimer(time.Second, "t.go:1")
			engine.Sleep(500*time.Millisecond, "t.go:2")
			if !engine.TimerReset(tm, time.Second, "t.go:3") {
				t.Errorf("Reset of a pending timer = false")
			}
			if v := engine.Recv(tm.C, "t.go:4"); !near(v, at(1500*time.Millisecond)) {
				t.Errorf("reset timer fired at %v, want %v", v, at(1500*time.Millisecond))
			}
		}},
		{"reset after receiving", func(t *engine.T) {
			tm := engine.NewTimer(time.Second, "t.go:1")
			engine.Recv(tm.C, "t.go:2")
			if engine.TimerReset(tm, time.Second, "t.go:3") {
				t.Errorf("Reset of an expired timer = true")
			}
			if v := engine.Recv(tm.C, "t.go:4"); !near(v, at(2*time.Second)) {
				t.Errorf("timer fired again at %v", v)
			}
		}},
		{"reset after firing drops the stale value", func(t *engine.T) {
			tm := engine.NewTimer(time.Second, "t.go:1")
			engine.Sleep(3*time.Second, "t.go:2")
			if !engine.TimerReset(tm, time.Second, "t.go:3") {
				t.Errorf("Reset of a fired, unreceived timer = false")
			}
			if v := engine.Recv(tm.C, "t.go:4"); !near(v, at(4*time.Second)) {
				t.Errorf("received %v, want the new firing %v", v, at(4*time.Second))
			}
		}},
		{"reset stopped", func(t *engine.T) {
			tm := engine.NewTimer(time.Second, "t.go:1")
			engine.TimerStop(tm, "t.go:2")
			if engine.TimerReset(tm, 2*time.Second, "t.go:3") {
				t.Errorf("Reset of a stopped timer = true")
			}
			if v := engine.Recv(tm.C, "t.go:4"); !near(v, at(2*time.Second)) {
				t.Errorf("fired at %v", v)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tmAll(t, tt.body) })
	}
}

func TestTimerStopRace(t *testing.T) {
	// A receiver races with a goroutine stopping the timer. Whatever the schedule, either the
	// value was received and Stop reports false, or Stop reports true and nothing is received.
	var stopped, received int
	body := func(t *engine.T) {
		tm := engine.NewTimer(time.Second, "r.go:1")
		got := engine.MakeChan[bool](1, "r.go:2")
		engine.Go(func() {
			engine.Sleep(time.Second, "r.go:10") // wakes at the instant the timer fires
			c := engine.RecvCase(tm.C)
			switch engine.Select("r.go:3", false, c, engine.RecvCase(engine.After(time.Minute, "r.go:4"))) {
			case 0:
				engine.Send(got, true, "r.go:5")
			default:
				engine.Send(got, false, "r.go:6")
			}
		}, "r.go:0")
		engine.Sleep(time.Second, "r.go:7") // wakes at the instant the timer fires
		ok := engine.TimerStop(tm, "r.go:8")
		rcv := engine.Recv(got, "r.go:9")
		if ok == rcv {
			t.Errorf("Stop = %v and received = %v", ok, rcv)
		}
		if ok {
			stopped++
		} else {
			received++
		}
	}
	tmExplore(t, body, 300)
	if stopped == 0 || received == 0 {
		t.Errorf("outcomes: %d stopped, %d received; want both", stopped, received)
	}
}

func TestTimerAfterFunc(t *testing.T) {
	tests := []struct {
		name string
		body func(t *engine.T)
	}{
		{"runs once in its own goroutine", func(t *engine.T) {
			runs := 0
			var in engine.GID
			tm := engine.AfterFunc(time.Second, func() {
				runs++
				in = engine.Goroutine()
				if now := engine.Now(); !near(now, at(time.Second)) {
					t.Errorf("f ran at %v", now)
				}
			}, "a.go:1")
			if tm.C != nil {
				t.Errorf("AfterFunc timer has a channel")
			}
			engine.Sleep(time.Hour, "a.go:2")
			if runs != 1 {
				t.Errorf("f ran %d times", runs)
			}
			if in == engine.Goroutine() || in == engine.NoGoroutine {
				t.Errorf("f ran in %v, the test body is %v", in, engine.Goroutine())
			}
			if engine.TimerStop(tm, "a.go:3") {
				t.Errorf("Stop after f started = true")
			}
		}},
		{"stop prevents it", func(t *engine.T) {
			tm := engine.AfterFunc(time.Second, func() { t.Errorf("stopped AfterFunc ran") }, "a.go:1")
			engine.Sleep(500*time.Millisecond, "a.go:2")
			if !engine.TimerStop(tm, "a.go:3") {
				t.Errorf("Stop of a pending AfterFunc = false")
			}
			engine.Sleep(time.Hour, "a.go:4")
		}},
		{"reset runs it again", func(t *engine.T) {
			var times []time.Time
			tm := engine.AfterFunc(time.Second, func() { times = append(times, engine.Now()) }, "a.go:1")
			engine.Sleep(2*time.Second, "a.go:2")
			if engine.TimerReset(tm, time.Second, "a.go:3") {
				t.Errorf("Reset after f started = true")
			}
			engine.Sleep(2*time.Second, "a.go:4")
			want := []time.Time{at(time.Second), at(3 * time.Second)}
			if len(times) != len(want) || !near(times[0], want[0]) || !near(times[1], want[1]) {
				t.Errorf("f ran at %v, want %v", times, want)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tmAll(t, tt.body) })
	}

	// The callback is a goroutine like any other: it races with the test body.
	var orders = map[string]bool{}
	for seed := uint64(0); seed < 60; seed++ {
		var order []string
		res := tmRun(t, func(t *engine.T) {
			mu := engine.MakeChan[int](1, "a.go:1")
			engine.AfterFunc(time.Second, func() {
				engine.Send(mu, 1, "a.go:2")
				order = append(order, "f")
				engine.Recv(mu, "a.go:3")
			}, "a.go:4")
			engine.Sleep(time.Second, "a.go:5") // wakes when f starts: both run alongside
			engine.Send(mu, 1, "a.go:7")
			order = append(order, "body")
			engine.Recv(mu, "a.go:8")
			engine.Sleep(time.Second, "a.go:9")
		}, randomStrategy(seed))
		if res.Bug != nil {
			t.Fatal(res.Bug)
		}
		orders[fmt.Sprint(order)] = true
	}
	if len(orders) != 2 {
		t.Errorf("orders of f and the body: %v, want both", orders)
	}
}

func TestTicker(t *testing.T) {
	tests := []struct {
		name string
		body func(t *engine.T)
	}{
		{"delivers periodically", func(t *engine.T) {
			tk := engine.NewTicker(time.Second, "k.go:1")
			for i := 1; i <= 3; i++ {
				if v := engine.Recv(tk.C, "k.go:2"); !near(v, at(time.Duration(i)*time.Second)) {
					t.Errorf("tick %d at %v", i, v)
				}
			}
			engine.TickerStop(tk, "k.go:3")
		}},
		{"drops ticks for a slow receiver", func(t *engine.T) {
			tk := engine.NewTicker(time.Second, "k.go:1")
			engine.Sleep(3500*time.Millisecond, "k.go:2")
			// The tick of 1s waited; those of 2s and 3s were dropped.
			if v := engine.Recv(tk.C, "k.go:3"); !near(v, at(time.Second)) {
				t.Errorf("first tick %v, want %v", v, at(time.Second))
			}
			if v := engine.Recv(tk.C, "k.go:4"); !near(v, at(4*time.Second)) {
				t.Errorf("second tick %v, want %v", v, at(4*time.Second))
			}
			engine.TickerStop(tk, "k.go:5")
		}},
		{"stop", func(t *engine.T) {
			tk := engine.NewTicker(time.Second, "k.go:1")
			engine.Recv(tk.C, "k.go:2")
			engine.Sleep(1500*time.Millisecond, "k.go:3") // a tick is waiting
			engine.TickerStop(tk, "k.go:4")
			engine.Sleep(time.Hour, "k.go:5")
			if v, ok := tmPoll(tk.C, "k.go:6"); ok {
				t.Errorf("tick %v after Stop", v)
			}
		}},
		{"reset", func(t *engine.T) {
			tk := engine.NewTicker(time.Second, "k.go:1")
			engine.Sleep(1500*time.Millisecond, "k.go:2") // the tick of 1s is waiting
			engine.TickerReset(tk, 2*time.Second, "k.go:3")
			if v := engine.Recv(tk.C, "k.go:4"); !near(v, at(3500*time.Millisecond)) {
				t.Errorf("first tick after Reset %v, want %v", v, at(3500*time.Millisecond))
			}
			if v := engine.Recv(tk.C, "k.go:5"); !near(v, at(5500*time.Millisecond)) {
				t.Errorf("second tick after Reset %v", v)
			}
			engine.TickerStop(tk, "k.go:6")
			engine.TickerReset(tk, time.Second, "k.go:7") // restarts a stopped ticker
			if v := engine.Recv(tk.C, "k.go:8"); !near(v, at(6500*time.Millisecond)) {
				t.Errorf("tick after Stop and Reset %v", v)
			}
			engine.TickerStop(tk, "k.go:9")
		}},
		{"tick", func(t *engine.T) {
			if c := engine.Tick(0, "k.go:1"); c != nil {
				t.Errorf("Tick(0) is not nil")
			}
			c := engine.Tick(time.Minute, "k.go:2")
			engine.Recv(c, "k.go:3")
			if v := engine.Recv(c, "k.go:4"); !near(v, at(2*time.Minute)) {
				t.Errorf("second tick %v", v)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tmAll(t, tt.body) })
	}
}

func TestTickerNonPositive(t *testing.T) {
	msg := func(f func()) (s string) {
		defer func() { s = fmt.Sprint(recover()) }()
		f()
		return ""
	}
	realNew := msg(func() { time.NewTicker(0) })
	tk := time.NewTicker(time.Hour)
	realReset := msg(func() { tk.Reset(-1) })
	tk.Stop()
	if realNew != "non-positive interval for NewTicker" || realReset != "non-positive interval for Ticker.Reset" {
		t.Fatalf("real messages: %q, %q", realNew, realReset)
	}
	tests := []struct {
		name string
		body func(t *engine.T)
		want string
	}{
		{"NewTicker(0)", func(t *engine.T) { engine.NewTicker(0, "n.go:1") }, realNew},
		{"NewTicker(-1)", func(t *engine.T) { engine.NewTicker(-1, "n.go:1") }, realNew},
		{"Reset(0)", func(t *engine.T) {
			tk := engine.NewTicker(time.Second, "n.go:1")
			engine.TickerReset(tk, 0, "n.go:2")
		}, realReset},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmWantBug(t, tmRun(t, tt.body, firstEnabled()), engine.Panic, tt.want)
		})
	}
}

func TestTimeSelectTimeout(t *testing.T) {
	// The timeout fires only in the interleavings where the value is late: when the worker
	// that sends it waits for a mutex held by a goroutine that sleeps past the timeout.
	var timeouts, values int
	body := func(t *engine.T) {
		ch := engine.MakeChan[int](1, "x.go:1")
		lock := engine.MakeChan[struct{}](1, "x.go:2") // a mutex as a channel
		engine.Go(func() {
			engine.Send(lock, struct{}{}, "x.go:3")
			engine.Sleep(2*time.Second, "x.go:4")
			engine.Recv(lock, "x.go:5")
		}, "x.go:0")
		engine.Go(func() {
			engine.Send(lock, struct{}{}, "x.go:6")
			engine.Send(ch, 42, "x.go:7")
			engine.Recv(lock, "x.go:8")
		}, "x.go:0")
		v := engine.RecvCase(ch)
		switch engine.Select("x.go:9", false, v, engine.RecvCase(engine.After(time.Second, "x.go:10"))) {
		case 0:
			values++
			if v.Value() != 42 || !near(engine.Now(), engine.Epoch) {
				t.Errorf("value %d at %v", v.Value(), engine.Now())
			}
		case 1:
			timeouts++
			if !near(engine.Now(), at(time.Second)) {
				t.Errorf("timeout at %v", engine.Now())
			}
		}
	}
	tmExplore(t, body, 300)
	if timeouts == 0 || values == 0 {
		t.Errorf("%d timeouts, %d values: want both outcomes", timeouts, values)
	}
}

func TestTimeTerminates(t *testing.T) {
	t.Run("timers nobody stops", func(t *testing.T) {
		// The test returns leaving a timer, a ticker and a ticker whose ticks a goroutine
		// stopped reading: the execution still ends, without a bug.
		tmAll(t, func(t *engine.T) {
			engine.NewTimer(time.Hour, "z.go:1")
			engine.NewTicker(time.Second, "z.go:2")
			c := engine.Tick(3*time.Second, "z.go:3")
			engine.Go(func() {
				engine.Recv(c, "z.go:4")
				engine.Recv(c, "z.go:5")
			}, "z.go:0")
		})
	})
	t.Run("deadlock despite a ticker", func(t *testing.T) {
		// Every goroutine is blocked for good, but a ticker still ticks: the deadlock is
		// reported rather than the clock ticking forever.
		res := tmRun(t, func(t *engine.T) {
			engine.NewTicker(time.Second, "z.go:1")
			engine.NewTicker(1500*time.Millisecond, "z.go:2")
			engine.Recv(engine.MakeChan[int](0, "z.go:3"), "z.go:4")
		}, firstEnabled())
		tmWantBug(t, res, engine.Deadlock, "recv at z.go:4")
	})
	t.Run("receiver of a stopped timer", func(t *testing.T) {
		res := tmRun(t, func(t *engine.T) {
			tm := engine.NewTimer(time.Second, "z.go:1")
			engine.TimerStop(tm, "z.go:2")
			engine.Recv(tm.C, "z.go:3")
		}, firstEnabled())
		tmWantBug(t, res, engine.Deadlock, "recv at z.go:3")

		res = tmRun(t, func(t *engine.T) {
			tk := engine.NewTicker(time.Second, "z.go:1")
			engine.TickerStop(tk, "z.go:2")
			engine.Go(func() { engine.Recv(tk.C, "z.go:3") }, "z.go:0")
		}, firstEnabled())
		tmWantBug(t, res, engine.Leak, "recv at z.go:3")
	})
	t.Run("hours of virtual time", func(t *testing.T) {
		tmAll(t, func(t *engine.T) {
			tk := engine.NewTicker(time.Hour, "h.go:1")
			for range 24 * 365 {
				engine.Recv(tk.C, "h.go:2")
			}
			engine.TickerStop(tk, "h.go:3")
			engine.Sleep(24*time.Hour, "h.go:4")
			if want := at(366 * 24 * time.Hour); !near(engine.Now(), want) {
				t.Errorf("now = %v, want %v", engine.Now(), want)
			}
		})
	})
}

func TestTimeOutsideExecution(t *testing.T) {
	// Outside an execution the real timers are used (nothing here waits for them).
	tm := engine.NewTimer(time.Hour, "o.go:1")
	if !engine.TimerStop(tm, "o.go:2") || engine.TimerReset(tm, time.Hour, "o.go:3") != false {
		t.Errorf("real timer Stop/Reset")
	}
	engine.TimerStop(tm, "o.go:4")
	tk := engine.NewTicker(time.Hour, "o.go:5")
	engine.TickerReset(tk, 2*time.Hour, "o.go:6")
	engine.TickerStop(tk, "o.go:7")
	af := engine.AfterFunc(time.Hour, func() { t.Errorf("ran") }, "o.go:8")
	if !engine.TimerStop(af, "o.go:9") {
		t.Errorf("real AfterFunc Stop = false")
	}
	// Readings of the clock are on the executions' timeline, before Epoch (clock.go).
	if a, b := engine.Now(), engine.Now(); !a.Before(b) || !b.Before(engine.Epoch) || engine.Epoch.Sub(a) > time.Millisecond {
		t.Errorf("Now outside an execution: %v, then %v: want both in the millisecond before %v, in that order", a, b, engine.Epoch)
	}
}

// near reports whether got is want, or at most a microsecond after it: every step takes a
// little virtual time and every reading of the clock moves it by a nanosecond (clock.go), so
// an event happens at the instant it was due or just after, never before.
func near(got, want time.Time) bool {
	return !got.Before(want) && got.Sub(want) < time.Microsecond
}

// TestTimerStoppedThroughAnInterface: a timer made under control and stopped through an
// interface (package time's method, which the instrumenter cannot rewrite — gocron stops
// clockwork's realTimer{*time.Timer} as a clockwork.Timer) does not panic as a timer the
// runtime never made would, reports it stopped a pending timer, and does not fire: the
// AfterFunc's function never runs, the channel never receives. A ticker's Reset through an
// interface does not panic either.
func TestTimerStoppedThroughAnInterface(t *testing.T) {
	type stopper interface{ Stop() bool }
	type resetter interface{ Reset(time.Duration) }
	var ran, received, stopped bool
	rep := engine.Explore(func(et *engine.T) {
		var s stopper = engine.AfterFunc(time.Second, func() { ran = true }, "i.go:1")
		stopped = s.Stop()
		tm := engine.NewTimer(time.Second, "i.go:2")
		s = struct{ *time.Timer }{tm}
		s.Stop()
		var r resetter = engine.NewTicker(time.Second, "i.go:3")
		r.Reset(time.Minute)
		engine.Sleep(time.Hour, "i.go:4")
		_, received = tmPoll(tm.C, "i.go:5")
	}, engine.Config{Strategy: randomStrategy(1), Schedules: 3})
	if rep.First != nil {
		t.Fatalf("bug %v", rep.First.Bug)
	}
	if !stopped || ran || received {
		t.Errorf("stopped through an interface: Stop reported %v, the function ran %v, the channel received %v: want true, false, false", stopped, ran, received)
	}
}
