package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// chChooser is firstEnabled whose data choices are made by choose; it records the choices.
type chChooser struct {
	*funcStrategy
	choose  func(c *engine.Choice) int
	choices []engine.Choice
}

func (s *chChooser) Choose(c *engine.Choice) int {
	s.choices = append(s.choices, *c)
	return s.choose(c)
}

func chChoosing(k func(c *engine.Choice) int) *chChooser {
	return &chChooser{funcStrategy: firstEnabled(), choose: k}
}

func chChoose(k int) *chChooser { return chChoosing(func(*engine.Choice) int { return k }) }

func chLast() *chChooser { return chChoosing(func(c *engine.Choice) int { return c.N - 1 }) }

func TestSelectChoiceRecorded(t *testing.T) {
	body := func(t *engine.T) {
		a := engine.MakeChan[string](1, "s.go:1")
		b := engine.MakeChan[string](1, "s.go:2")
		engine.Send(a, "a", "s.go:3")
		engine.Send(b, "b", "s.go:4")
		ca, cb := engine.RecvCase(a), engine.RecvCase(b)
		k := engine.Select("s.go:5", false, ca, cb)
		var got string
		switch k {
		case 0:
			got = ca.Value()
		case 1:
			got = cb.Value()
		}
		t.Logf("case %d got %s", k, got)
		// The case not taken left its value in place.
		if n := engine.Len(a, "s.go:6") + engine.Len(b, "s.go:7"); n != 1 {
			t.Errorf("%d values left", n)
		}
	}
	fps := map[uint64]bool{}
	for k, want := range []string{"s.go:5: case 0 got a", "s.go:5: case 1 got b"} {
		_ = want
		s := chChoose(k)
		res := chRun(t, body, s)
		if res.Bug != nil {
			t.Fatal(res.Bug)
		}
		if len(res.Logs) != 1 || !strings.HasSuffix(res.Logs[0], want[len("s.go:5: "):]) {
			t.Errorf("choice %d: logs %q", k, res.Logs)
		}
		if len(s.choices) != 1 || s.choices[0].N != 2 || s.choices[0].Op.Kind != engine.OpSelect || s.choices[0].Op.Pos != "s.go:5" || s.choices[0].G != 0 {
			t.Errorf("choices %+v", s.choices)
		}
		var choices []schedule.Step
		for _, st := range res.Schedule {
			if st.Kind == schedule.Choice {
				choices = append(choices, st)
			}
		}
		if len(choices) != 1 || choices[0].Value != int32(k) || choices[0].N != 2 || choices[0].Op != "select" {
			t.Errorf("choice %d: recorded %+v", k, choices)
		}
		fps[res.Fingerprint] = true
	}
	// The select's step is attributed to the channel taken: the two executions are different
	// happens-before orders.
	if len(fps) != 2 {
		t.Errorf("both choices have the same fingerprint")
	}
	// A random walk over choices reaches both.
	seen := map[string]bool{}
	for seed := uint64(0); seed < 40 && len(seen) < 2; seed++ {
		i := seed
		res := chRun(t, body, chChoosing(func(c *engine.Choice) int { i = i*6364136223846793005 + 1442695040888963407; return int(i>>33) % c.N }))
		seen[res.Logs[0]] = true
	}
	if len(seen) != 2 {
		t.Errorf("outcomes reached: %v", seen)
	}
}

func TestSelectDefault(t *testing.T) {
	res := chRun(t, func(t *engine.T) {
		ch := engine.MakeChan[int](1, "d.go:1")
		var nilc chan int
		if k := engine.Select("d.go:2", true, engine.RecvCase(ch)); k != -1 {
			t.Errorf("empty channel: took %d", k)
		}
		if k := engine.Select("d.go:3", true, engine.SendCase(ch, 7), engine.RecvCase(nilc)); k != 0 {
			t.Errorf("room in buffer: took %d", k)
		}
		if k := engine.Select("d.go:4", true, engine.SendCase(ch, 8)); k != -1 {
			t.Errorf("full buffer: took %d", k)
		}
		r := engine.RecvCase(ch)
		if k := engine.Select("d.go:5", true, r, engine.SendCase(nilc, 1)); k != 0 || r.Value() != 7 || !r.OK() {
			t.Errorf("value in buffer: took %d, %d %v", k, r.Value(), r.OK())
		}
		if k := engine.Select("d.go:6", true); k != -1 {
			t.Errorf("no case: took %d", k)
		}
		if k := engine.Select("d.go:7", true, engine.RecvCase(nilc), engine.SendCase(nilc, 1)); k != -1 {
			t.Errorf("nil channels: took %d", k)
		}
		engine.Close(ch, "d.go:8")
		r = engine.RecvCase(ch)
		if k := engine.Select("d.go:9", true, r); k != 0 || r.Value() != 0 || r.OK() {
			t.Errorf("closed: took %d, %d %v", k, r.Value(), r.OK())
		}
	}, chLast())
	if res.Bug != nil {
		t.Fatal(res.Bug)
	}
	for _, s := range res.Schedule {
		if s.Kind == schedule.Choice {
			t.Errorf("unexpected choice %v", s)
		}
	}
}

func TestSelectBlocking(t *testing.T) {
	tests := []struct {
		name string
		body func(*engine.T)
		kind engine.BugKind // "" for none
		msg  string
	}{
		{"select {}", func(t *engine.T) {
			engine.Select("b.go:1", false)
		}, engine.Deadlock, "G0 select at b.go:1"},
		{"only nil channels", func(t *engine.T) {
			var a chan int
			var b chan string
			engine.Select("b.go:1", false, engine.RecvCase(a), engine.SendCase(b, "x"))
		}, engine.Deadlock, "G0 select at b.go:1"},
		{"leaked select", func(t *engine.T) {
			a := engine.MakeChan[int](0, "b.go:1")
			engine.Go(func() { engine.Select("b.go:2", false, engine.RecvCase(a)) }, "b.go:0")
		}, engine.Leak, "G1 select at b.go:2"},
		{"a select cannot match itself", func(t *engine.T) {
			a := engine.MakeChan[int](0, "b.go:1")
			engine.Select("b.go:2", false, engine.RecvCase(a), engine.SendCase(a, 1))
		}, engine.Deadlock, "G0 select at b.go:2"},
		{"blocks until a sender comes", func(t *engine.T) {
			a := engine.MakeChan[int](0, "b.go:1")
			b := engine.MakeChan[int](0, "b.go:2")
			engine.Go(func() { engine.Send(b, 5, "b.go:3") }, "b.go:0")
			ra, rb := engine.RecvCase(a), engine.RecvCase(b)
			if k := engine.Select("b.go:4", false, ra, rb); k != 1 || rb.Value() != 5 || !rb.OK() {
				t.Errorf("took %d: %d %v", k, rb.Value(), rb.OK())
			}
		}, "", ""},
		{"blocks until a receiver comes", func(t *engine.T) {
			a := engine.MakeChan[int](0, "b.go:1")
			got := engine.MakeChan[int](1, "b.go:2")
			engine.Go(func() { engine.Send(got, engine.Recv(a, "b.go:3"), "b.go:4") }, "b.go:0")
			var nilc chan int
			if k := engine.Select("b.go:5", false, engine.RecvCase(nilc), engine.SendCase(a, 9)); k != 1 {
				t.Errorf("took %d", k)
			}
			if v := engine.Recv(got, "b.go:6"); v != 9 {
				t.Errorf("receiver got %d", v)
			}
		}, "", ""},
		{"woken by close", func(t *engine.T) {
			a := engine.MakeChan[int](0, "b.go:1")
			engine.Go(func() { engine.Close(a, "b.go:2") }, "b.go:0")
			r := engine.RecvCase(a)
			if k := engine.Select("b.go:3", false, r); k != 0 || r.OK() {
				t.Errorf("took %d, ok %v", k, r.OK())
			}
		}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for name, mk := range chStrategies() {
				res := chRun(t, tt.body, mk())
				if tt.kind == "" {
					if res.Bug != nil {
						t.Fatalf("%s: %v", name, res.Bug)
					}
					continue
				}
				chWantBug(t, res, tt.kind, tt.msg)
			}
		})
	}
}

func TestSelectMatchedCommits(t *testing.T) {
	// A sender that completes a waiting select commits it to that case: the select is no
	// longer waiting on its other channels, under every schedule.
	body := func(t *engine.T) {
		a := engine.MakeChan[int](0, "m.go:1")
		b := engine.MakeChan[int](0, "m.go:2")
		res := engine.MakeChan[int](1, "m.go:3")
		engine.Go(func() {
			ra, rb := engine.RecvCase(a), engine.RecvCase(b)
			switch engine.Select("m.go:4", false, ra, rb) {
			case 0:
				engine.Send(res, ra.Value(), "m.go:5")
			case 1:
				engine.Send(res, -rb.Value(), "m.go:6")
			}
		}, "m.go:0")
		engine.Send(a, 1, "m.go:7")
		if k := engine.Select("m.go:8", true, engine.SendCase(b, 2)); k != -1 {
			t.Errorf("sent on b to a select that already took a")
		}
		if v := engine.Recv(res, "m.go:9"); v != 1 {
			t.Errorf("select received %d", v)
		}
	}
	for name, mk := range chStrategies() {
		if res := chRun(t, body, mk()); res.Bug != nil {
			t.Fatalf("%s: %v", name, res.Bug)
		}
	}
	chNoBug(t, body, 300)
}

func TestSelectFIFOWithPlainReceivers(t *testing.T) {
	// A plain receiver and a select wait on the same channel; the first to wait is served
	// first (without preemption, so that both are waiting when the sends come).
	res := chRun(t, func(t *engine.T) {
		ch := engine.MakeChan[int](0, "q.go:1")
		other := engine.MakeChan[int](0, "q.go:2")
		out := engine.MakeChan[[2]int](2, "q.go:3")
		engine.Go(func() { engine.Send(out, [2]int{1, engine.Recv(ch, "q.go:4")}, "q.go:5") }, "q.go:0")
		engine.Go(func() {
			r := engine.RecvCase(ch)
			engine.Select("q.go:6", false, engine.RecvCase(other), r)
			engine.Send(out, [2]int{2, r.Value()}, "q.go:7")
		}, "q.go:0")
		engine.Send(ch, 1, "q.go:8")
		engine.Send(ch, 2, "q.go:9")
		for i := 0; i < 2; i++ {
			if p := engine.Recv(out, "q.go:10"); p[0] != p[1] {
				t.Errorf("waiter %d got %d", p[0], p[1])
			}
		}
	}, firstEnabled())
	if res.Bug != nil {
		t.Fatal(res.Bug)
	}
}

func TestSelectDefaultRace(t *testing.T) {
	// go func() { ch <- 1 }(); select { case <-ch: default: }: in Go the select may run
	// before the sender has started its send, and the sender then leaks. With the sender at
	// its send (it starts at the yield), both outcomes are alternatives of the select's choice.
	body := func(t *engine.T) {
		ch := engine.MakeChan[int](0, "r.go:1")
		engine.Go(func() { engine.Send(ch, 1, "r.go:2") }, "r.go:0")
		engine.Gosched("r.go:4")
		engine.Select("r.go:3", true, engine.RecvCase(ch))
	}
	s := chChoose(0)
	if res := chRun(t, body, s); res.Bug != nil {
		t.Fatalf("receive taken: %v", res.Bug)
	}
	if len(s.choices) != 1 || s.choices[0].N != 2 {
		t.Fatalf("choices %+v", s.choices)
	}
	chWantBug(t, chRun(t, body, chLast()), engine.Leak, "G1 send at r.go:2")

	// The same for a send case with a pending receiver.
	body = func(t *engine.T) {
		ch := engine.MakeChan[int](0, "r.go:1")
		engine.Go(func() { engine.Recv(ch, "r.go:2") }, "r.go:0")
		engine.Gosched("r.go:4")
		engine.Select("r.go:3", true, engine.SendCase(ch, 1))
	}
	chWantBug(t, chRun(t, body, chLast()), engine.Leak, "G1 recv at r.go:2")
	if res := chRun(t, body, chChoose(0)); res.Bug != nil {
		t.Fatal(res.Bug)
	}
}

func TestSelectPingPong(t *testing.T) {
	// Two goroutines exchange values with selects over send and receive cases; a quit channel
	// ends them. No schedule may report a bug.
	chNoBug(t, func(t *engine.T) {
		ping := engine.MakeChan[int](0, "pp.go:1")
		pong := engine.MakeChan[int](0, "pp.go:2")
		quit := engine.MakeChan[struct{}](0, "pp.go:3")
		done := engine.MakeChan[int](0, "pp.go:4")
		engine.Go(func() {
			n := 0
			for {
				r, q := engine.RecvCase(ping), engine.RecvCase(quit)
				switch engine.Select("pp.go:5", false, r, q) {
				case 0:
					n++
					engine.Send(pong, r.Value()+1, "pp.go:6")
				case 1:
					engine.Send(done, n, "pp.go:7")
					return
				}
			}
		}, "pp.go:0")
		v := 0
		for i := 0; i < 3; i++ {
			r := engine.RecvCase(pong)
			switch engine.Select("pp.go:8", false, engine.SendCase(ping, v), r) {
			case 0:
				v = engine.Recv(pong, "pp.go:9")
			case 1:
				t.Errorf("pong without ping")
			}
		}
		engine.Close(quit, "pp.go:10")
		if n := engine.Recv(done, "pp.go:11"); n != 3 || v != 3 {
			t.Errorf("n = %d, v = %d", n, v)
		}
	}, 1000)
}

func TestSelectForeign(t *testing.T) {
	// A select over a foreign channel (a context's Done, say) and a registered one: when both
	// are ready, both are alternatives.
	done := make(chan struct{})
	close(done)
	body := func(t *engine.T) {
		work := engine.MakeChan[int](1, "f.go:1")
		engine.Send(work, 1, "f.go:2")
		k := engine.Select("f.go:3", false, engine.RecvCase(done), engine.RecvCase(work))
		t.Log(k)
	}
	for k := 0; k < 2; k++ {
		res := chRun(t, body, chChoose(k))
		if res.Bug != nil {
			t.Fatal(res.Bug)
		}
		if len(res.Logs) != 1 || !strings.HasSuffix(res.Logs[0], string(rune('0'+k))) {
			t.Errorf("choice %d: %q", k, res.Logs)
		}
	}
	// A select blocked on a foreign channel is woken when it is closed.
	stop := make(chan struct{})
	res := chRun(t, func(t *engine.T) {
		work := engine.MakeChan[int](0, "f.go:1")
		engine.Go(func() { close(stop) }, "f.go:0")
		r := engine.RecvCase(stop)
		if k := engine.Select("f.go:2", false, engine.RecvCase(work), r); k != 1 || r.OK() {
			t.Errorf("took %d", k)
		}
	}, chHighest())
	if res.Bug != nil {
		t.Fatal(res.Bug)
	}
}

func TestChanArrivalEnablesPartner(t *testing.T) {
	// A sender waiting on an unbuffered channel becomes enabled when a receiver arrives (and
	// vice versa), so that either side may execute the rendezvous first; in a select too.
	for _, tt := range []struct {
		name string
		body func(*engine.T)
	}{
		{"receiver arrives", func(t *engine.T) {
			ch := engine.MakeChan[int](0, "a.go:1")
			engine.Go(func() { engine.Send(ch, 1, "a.go:2") }, "a.go:0")
			engine.Recv(ch, "a.go:3")
		}},
		{"sender arrives", func(t *engine.T) {
			ch := engine.MakeChan[int](0, "a.go:1")
			engine.Go(func() { engine.Recv(ch, "a.go:2") }, "a.go:0")
			engine.Send(ch, 1, "a.go:3")
		}},
		{"select arrives", func(t *engine.T) {
			ch := engine.MakeChan[int](0, "a.go:1")
			engine.Go(func() { engine.Recv(ch, "a.go:2") }, "a.go:0")
			var nilc chan int
			engine.Select("a.go:3", false, engine.RecvCase(nilc), engine.SendCase(ch, 1))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var enabled [][]engine.GID
			s := &funcStrategy{pick: func(d *engine.Decision) engine.GID {
				enabled = append(enabled, append([]engine.GID(nil), d.Enabled()...))
				return d.EnabledAt(d.NumEnabled() - 1)
			}}
			if res := chRun(t, tt.body, s); res.Bug != nil {
				t.Fatal(res.Bug)
			}
			// Steps: G0 go; then G0 at its operation with G1 waiting: both enabled; G1
			// runs first (highest) and completes the rendezvous; G0's step just returns.
			want := "[[G0] [G0 G1] [G0]]"
			if got := fmt.Sprint(enabled); got != want {
				t.Errorf("enabled sets %s, want %s", got, want)
			}
		})
	}
}

func TestSelectMatchedLeavesOtherChannels(t *testing.T) {
	// G1 waits in a select on a and b; G2 waits to send on b. Once the main goroutine's send
	// on a completes the select, G2 has nobody to send to: it stays blocked (and leaks).
	body := func(t *engine.T) {
		a := engine.MakeChan[int](0, "o.go:1")
		b := engine.MakeChan[int](0, "o.go:2")
		engine.Go(func() { engine.Select("o.go:3", false, engine.RecvCase(a), engine.RecvCase(b)) }, "o.go:0")
		engine.Go(func() { engine.Send(b, 2, "o.go:4") }, "o.go:0")
		engine.Send(a, 1, "o.go:5")
	}
	chWantBug(t, chRun(t, body, firstEnabled()), engine.Leak, "G2 send at o.go:4")
	// Whatever the schedule, one of the two senders stays blocked; nothing else happens.
	rep := engine.Explore(body, engine.Config{Strategy: randomStrategy(5), Schedules: 300, KeepGoing: true})
	if rep.Buggy != rep.Schedules || rep.Err != nil {
		t.Fatalf("%d buggy of %d: %v", rep.Buggy, rep.Schedules, rep.Err)
	}
	if k := rep.First.Bug.Kind; k != engine.Leak && k != engine.Deadlock {
		t.Fatalf("bug %v", rep.First.Bug)
	}
	var kinds []engine.BugKind
	engine.Explore(body, engine.Config{Strategy: randomStrategy(5), Schedules: 300, KeepGoing: true, OnExecution: func(n int, r *engine.Result) {
		if r.Bug != nil && r.Bug.Kind != engine.Leak && r.Bug.Kind != engine.Deadlock {
			kinds = append(kinds, r.Bug.Kind)
		}
	}})
	if len(kinds) > 0 {
		t.Fatalf("unexpected bugs %v", kinds)
	}
}
