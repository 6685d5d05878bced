package engine_test

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
)

// racePairs lists the races of a report as sorted "posA~posB" pairs of sorted positions.
func racePairs(rep *engine.Report) []string {
	var out []string
	for _, r := range rep.Races {
		a, b := r.A.Pos, r.B.Pos
		if b < a {
			a, b = b, a
		}
		out = append(out, a+"~"+b)
	}
	sort.Strings(out)
	return out
}

// raceProgram is a test body written against the engine's API, as the instrumenter would
// write it, with the races it has.
type raceProgram struct {
	name  string
	body  func(t *engine.T)
	races []string // "posA~posB", positions sorted
}

var racePrograms = []raceProgram{
	{
		name: "unsynchronized counter",
		body: func(t *engine.T) {
			var n int
			var wg sync.WaitGroup
			for range 2 {
				engine.WGAdd(&wg, 1, "c.go:1")
				engine.Go(func() {
					engine.Store(&n, engine.Load(&n, "c.go:2")+1, "c.go:3")
					engine.WGDone(&wg, "c.go:4")
				}, "c.go:5")
			}
			engine.WGWait(&wg, "c.go:6")
			_ = engine.Load(&n, "c.go:7")
		},
		races: []string{"c.go:2~c.go:3", "c.go:3~c.go:3"},
	},
	{
		name: "mutex",
		body: func(t *engine.T) {
			var n int
			var mu sync.Mutex
			var wg sync.WaitGroup
			for range 3 {
				engine.WGAdd(&wg, 1, "m.go:1")
				engine.Go(func() {
					engine.Lock(&mu, "m.go:2")
					engine.Store(&n, engine.Load(&n, "m.go:3")+1, "m.go:4")
					engine.Unlock(&mu, "m.go:5")
					engine.WGDone(&wg, "m.go:6")
				}, "m.go:7")
			}
			engine.WGWait(&wg, "m.go:8")
			_ = engine.Load(&n, "m.go:9")
		},
	},
	{
		name: "write under RLock",
		body: func(t *engine.T) {
			var n int
			var rw sync.RWMutex
			var wg sync.WaitGroup
			for range 2 {
				engine.WGAdd(&wg, 1, "r.go:1")
				engine.Go(func() {
					engine.RLock(&rw, "r.go:2")
					engine.Store(&n, 1, "r.go:3")
					engine.RUnlock(&rw, "r.go:4")
					engine.WGDone(&wg, "r.go:5")
				}, "r.go:6")
			}
			engine.WGWait(&wg, "r.go:7")
		},
		races: []string{"r.go:3~r.go:3"},
	},
	{
		name: "rwmutex readers and a writer",
		body: func(t *engine.T) {
			var n int
			var rw sync.RWMutex
			var wg sync.WaitGroup
			for i := range 3 {
				engine.WGAdd(&wg, 1, "rw.go:1")
				engine.Go(func() {
					if i == 0 {
						engine.RWLock(&rw, "rw.go:2")
						engine.Store(&n, 1, "rw.go:3")
						engine.RWUnlock(&rw, "rw.go:4")
					} else {
						engine.RLock(&rw, "rw.go:5")
						_ = engine.Load(&n, "rw.go:6")
						engine.RUnlock(&rw, "rw.go:7")
					}
					engine.WGDone(&wg, "rw.go:8")
				}, "rw.go:9")
			}
			engine.WGWait(&wg, "rw.go:10")
			engine.Store(&n, 2, "rw.go:11")
		},
	},
	{
		name: "write after Done",
		body: func(t *engine.T) {
			var result int
			var wg sync.WaitGroup
			engine.WGAdd(&wg, 1, "w.go:1")
			engine.Go(func() {
				engine.WGDone(&wg, "w.go:2")
				engine.Store(&result, 1, "w.go:3")
			}, "w.go:4")
			engine.WGWait(&wg, "w.go:5")
			_ = engine.Load(&result, "w.go:6")
		},
		races: []string{"w.go:3~w.go:6"},
	},
	{
		name: "unbuffered channel both ways",
		body: func(t *engine.T) {
			var a, b int
			ch := engine.MakeChan[int](0, "u.go:1")
			engine.Go(func() {
				engine.Store(&a, 1, "u.go:2")
				engine.Send(ch, 1, "u.go:3")  // a is published by the send
				_ = engine.Load(&b, "u.go:4") // b was written before the receive, which completes before this send does
			}, "u.go:5")
			engine.Store(&b, 1, "u.go:6")
			engine.Recv(ch, "u.go:7")
			_ = engine.Load(&a, "u.go:8")
		},
	},
	{
		name: "buffered channel as a mutex",
		body: func(t *engine.T) {
			var n int
			sem := engine.MakeChan[struct{}](1, "s.go:1")
			done := engine.MakeChan[bool](0, "s.go:2")
			for range 3 {
				engine.Go(func() {
					engine.Send(sem, struct{}{}, "s.go:3")
					engine.Store(&n, engine.Load(&n, "s.go:4")+1, "s.go:5")
					engine.Recv(sem, "s.go:6")
					engine.Send(done, true, "s.go:7")
				}, "s.go:8")
			}
			for range 3 {
				engine.Recv(done, "s.go:9")
			}
		},
	},
	{
		name: "buffered channel of capacity 2 as a mutex",
		body: func(t *engine.T) {
			var n int
			sem := engine.MakeChan[struct{}](2, "s2.go:1")
			done := engine.MakeChan[bool](0, "s2.go:2")
			for range 2 {
				engine.Go(func() {
					engine.Send(sem, struct{}{}, "s2.go:3")
					engine.Store(&n, 1, "s2.go:4")
					engine.Recv(sem, "s2.go:5")
					engine.Send(done, true, "s2.go:6")
				}, "s2.go:7")
			}
			for range 2 {
				engine.Recv(done, "s2.go:8")
			}
		},
		races: []string{"s2.go:4~s2.go:4"},
	},
	{
		name: "buffered channel publication",
		body: func(t *engine.T) {
			var data [3]int
			ch := engine.MakeChan[int](2, "b.go:1")
			engine.Go(func() {
				for i := range 3 {
					engine.Store(&data[i], i, "b.go:2")
					engine.Send(ch, i, "b.go:3")
				}
				engine.Close(ch, "b.go:4")
			}, "b.go:5")
			for {
				i, ok := engine.Recv2(ch, "b.go:6")
				if !ok {
					break
				}
				_ = engine.Load(&data[i], "b.go:7")
			}
		},
	},
	{
		name: "close before receive",
		body: func(t *engine.T) {
			var n int
			ch := engine.MakeChan[struct{}](0, "cl.go:1")
			engine.Go(func() {
				engine.Store(&n, 1, "cl.go:2")
				engine.Close(ch, "cl.go:3")
			}, "cl.go:4")
			engine.Recv(ch, "cl.go:5")
			_ = engine.Load(&n, "cl.go:6")
		},
	},
	{
		name: "select",
		body: func(t *engine.T) {
			var x, y int
			a := engine.MakeChan[int](0, "se.go:1")
			b := engine.MakeChan[int](1, "se.go:2")
			engine.Go(func() { engine.Store(&x, 1, "se.go:3"); engine.Send(a, 1, "se.go:4") }, "se.go:5")
			engine.Go(func() { engine.Store(&y, 1, "se.go:6"); engine.Send(b, 1, "se.go:7") }, "se.go:8")
			for range 2 {
				switch engine.Select("se.go:9", false, engine.RecvCase(a), engine.RecvCase(b)) {
				case 0:
					_ = engine.Load(&x, "se.go:10")
				case 1:
					_ = engine.Load(&y, "se.go:11")
				}
			}
		},
	},
	{
		name: "once",
		body: func(t *engine.T) {
			var once sync.Once
			var cfg *int
			var wg sync.WaitGroup
			for range 3 {
				engine.WGAdd(&wg, 1, "o.go:1")
				engine.Go(func() {
					engine.OnceDo(&once, func() { v := 7; engine.Store(&cfg, &v, "o.go:2") }, "o.go:3")
					_ = engine.Load(&cfg, "o.go:4")
					engine.WGDone(&wg, "o.go:5")
				}, "o.go:6")
			}
			engine.WGWait(&wg, "o.go:7")
		},
	},
	{
		name: "atomic publication",
		body: func(t *engine.T) {
			var data int
			var ready atomic.Bool
			engine.Go(func() {
				engine.Store(&data, 42, "a.go:1")
				engine.AtomicBoolStore(&ready, true, "a.go:2")
			}, "a.go:3")
			for !engine.AtomicBoolLoad(&ready, "a.go:4") {
				engine.Gosched("a.go:5")
			}
			_ = engine.Load(&data, "a.go:6")
		},
	},
	{
		name: "flag publication without atomics",
		body: func(t *engine.T) {
			var data int
			var ready bool
			engine.Go(func() {
				engine.Store(&data, 42, "f.go:1")
				engine.Store(&ready, true, "f.go:2")
			}, "f.go:3")
			for !engine.Load(&ready, "f.go:4") {
				engine.Gosched("f.go:5")
			}
			_ = engine.Load(&data, "f.go:6")
		},
		races: []string{"f.go:1~f.go:6", "f.go:2~f.go:4"},
	},
	{
		name: "go statement",
		body: func(t *engine.T) {
			var before, after int
			engine.Store(&before, 1, "g.go:1")
			done := engine.MakeChan[bool](0, "g.go:2")
			engine.Go(func() {
				_ = engine.Load(&before, "g.go:3")
				_ = engine.Load(&after, "g.go:4")
				engine.Send(done, true, "g.go:5")
			}, "g.go:6")
			engine.Store(&after, 1, "g.go:7")
			engine.Recv(done, "g.go:8")
		},
		races: []string{"g.go:4~g.go:7"},
	},
	{
		name: "cond",
		body: func(t *engine.T) {
			var mu sync.Mutex
			cond := sync.NewCond(&mu)
			var queue []int
			done := engine.MakeChan[bool](0, "cd.go:1")
			engine.Go(func() {
				engine.Lock(&mu, "cd.go:2")
				for len(engine.Load(&queue, "cd.go:3")) == 0 {
					engine.CondWait(cond, "cd.go:4")
				}
				engine.Store(&queue, engine.Load(&queue, "cd.go:5")[1:], "cd.go:6")
				engine.Unlock(&mu, "cd.go:7")
				engine.Send(done, true, "cd.go:8")
			}, "cd.go:9")
			engine.Lock(&mu, "cd.go:10")
			engine.Store(&queue, append(engine.Load(&queue, "cd.go:11"), 1), "cd.go:12")
			engine.CondSignal(cond, "cd.go:13")
			engine.Unlock(&mu, "cd.go:14")
			engine.Recv(done, "cd.go:15")
		},
	},
	{
		name: "AfterFunc and timer",
		body: func(t *engine.T) {
			var a, b int
			engine.Store(&a, 1, "t.go:1")
			fired := engine.MakeChan[bool](0, "t.go:2")
			engine.AfterFunc(time.Second, func() {
				_ = engine.Load(&a, "t.go:3")
				engine.Send(fired, true, "t.go:4")
			}, "t.go:5")
			engine.Store(&b, 1, "t.go:6")
			tm := engine.NewTimer(2*time.Second, "t.go:7")
			engine.Recv(tm.C, "t.go:8")
			_ = engine.Load(&b, "t.go:9")
			engine.Recv(fired, "t.go:10")
		},
	},
	{
		name: "context cancellation",
		body: func(t *engine.T) {
			var reason string
			ctx, cancel := context.WithCancel(context.Background())
			done := engine.MakeChan[bool](0, "x.go:1")
			engine.Go(func() {
				engine.Recv(ctx.Done(), "x.go:2")
				_ = engine.Load(&reason, "x.go:3")
				engine.Send(done, true, "x.go:4")
			}, "x.go:5")
			engine.Store(&reason, "stop", "x.go:6")
			cancel()
			engine.Recv(done, "x.go:7")
		},
	},
	{
		name: "map written from two goroutines",
		body: func(t *engine.T) {
			m := map[string]int{}
			done := engine.MakeChan[bool](0, "mp.go:1")
			engine.Go(func() {
				engine.MapStore(m, "a", 1, "mp.go:2")
				engine.Send(done, true, "mp.go:3")
			}, "mp.go:4")
			engine.MapStore(m, "b", 2, "mp.go:5")
			engine.Recv(done, "mp.go:6")
			_ = engine.MapLoad(m, "a", "mp.go:7")
		},
		races: []string{"mp.go:2~mp.go:5"},
	},
}

// TestRaceDetector explores each program with the detector on, under each points mode, and
// checks that exactly its races are reported, each with both positions and goroutines.
func TestRaceDetector(t *testing.T) {
	for _, p := range racePrograms {
		for _, points := range []engine.Points{engine.PointsAll, engine.PointsSync} {
			t.Run(p.name+"/"+points.String(), func(t *testing.T) {
				rep := engine.Explore(p.body, engine.Config{
					Strategy: randomStrategy(7), Schedules: 2000, Races: true, Points: points, KeepGoing: true,
				})
				if rep.First != nil || rep.Err != nil || len(rep.Limitations) > 0 {
					t.Fatalf("exploration: bug %v, error %v, limitations %v", rep.First, rep.Err, rep.Limitations)
				}
				got := racePairs(rep)
				if !slices.Equal(got, p.races) {
					t.Fatalf("races %q, want %q", got, p.races)
				}
				for _, r := range rep.Races {
					if r.Schedule < 1 || r.Schedules < 1 || r.Schedules > rep.Schedules || r.Schedule > rep.Schedules {
						t.Errorf("%v: schedule %d, schedules %d of %d", &r, r.Schedule, r.Schedules, rep.Schedules)
					}
					if !r.A.Write && !r.B.Write {
						t.Errorf("%v: two reads", &r)
					}
					for _, a := range []engine.RaceAccess{r.A, r.B} {
						if len(a.Stack) == 0 || !strings.Contains(a.Stack[0].Func, "engine_test.") {
							t.Errorf("%v: access %s at %s: stack %v", &r, a.Op(), a.Pos, a.Stack)
						}
						if (a.G == 0) != (a.Created == "") {
							t.Errorf("%v: access by %v created at %q", &r, a.G, a.Created)
						}
					}
				}
			})
		}
	}
}

// TestRacesFail checks that with RacesFail the first race is a bug that stops the exploration,
// and that the detector is off (no races, no cost) unless asked for.
func TestRacesFail(t *testing.T) {
	counter := racePrograms[0]
	rep := engine.Explore(counter.body, engine.Config{Strategy: randomStrategy(1), Schedules: 100, Races: true, RacesFail: true})
	if rep.First == nil || rep.First.Bug.Kind != engine.Race || rep.FirstAt != 1 {
		t.Fatalf("first %v at %d", rep.First, rep.FirstAt)
	}
	if b := rep.First.Bug; !strings.Contains(b.Message, "data race") || (b.Pos != "c.go:2" && b.Pos != "c.go:3") {
		t.Fatalf("bug %v", b)
	}
	rep = engine.Explore(counter.body, engine.Config{Strategy: randomStrategy(1), Schedules: 100})
	if len(rep.Races) != 0 || rep.First != nil {
		t.Fatalf("detector off: races %v, bug %v", rep.Races, rep.First)
	}
}

// TestRacyPoints checks that PointsRacy makes only the listed accesses scheduling points:
// with the counter's racy accesses listed, the lost update is found; with none, the accesses
// are not interleaved and it cannot be.
func TestRacyPoints(t *testing.T) {
	body := func(t *engine.T) {
		var n int
		var wg sync.WaitGroup
		for range 2 {
			engine.WGAdd(&wg, 1, "p.go:1")
			engine.Go(func() {
				engine.Store(&n, engine.Load(&n, "p.go:2")+1, "p.go:3")
				engine.WGDone(&wg, "p.go:4")
			}, "p.go:5")
		}
		engine.WGWait(&wg, "p.go:6")
		if engine.Load(&n, "p.go:7") != 2 {
			t.Fatalf("lost update")
		}
	}
	for _, tt := range []struct {
		points engine.Points
		racy   []string
		found  bool
		steps  int
	}{
		// Steps: two Adds, two go statements, the Wait (twice when it blocks), two Dones, and
		// the accesses that are points; a goroutine's start is one step with its first
		// operation (an access, or its Done).
		{engine.PointsAll, nil, true, 13},
		{engine.PointsRacy, []string{"p.go:2", "p.go:3"}, true, 12},
		{engine.PointsRacy, nil, false, 8},
		{engine.PointsSync, nil, false, 8},
	} {
		rep := engine.Explore(body, engine.Config{Strategy: randomStrategy(3), Schedules: 500, Points: tt.points, RacyPoints: tt.racy})
		if (rep.First != nil) != tt.found || rep.MaxSteps != tt.steps {
			t.Errorf("%v %v: bug %v, max steps %d; want found=%v, %d steps", tt.points, tt.racy, rep.First, rep.MaxSteps, tt.found, tt.steps)
		}
	}
}

// TestReadSetKeepsWhatALaterReadDoesNotCover: a read that happens before a later one leaves
// the detector's reads, covered by the later one — but not a plain read covered by an atomic
// one, for an atomic write races with the plain read and not with the atomic read. In each
// execution below, the body reads x plainly (a.go:1) and then atomically (a.go:2), and only
// then does a goroutine it started before store x atomically (a.go:3), unordered with them:
// the store races with the plain read. The reads are one (the last) while they are ordered,
// and a set once another goroutine reads x between them (a.go:8).
func TestReadSetKeepsWhatALaterReadDoesNotCover(t *testing.T) {
	tests := []struct {
		name        string
		otherReader bool
		want        []string
	}{
		{"ordered reads", false, []string{"a.go:1~a.go:3"}},
		{"concurrent reads", true, []string{"a.go:1~a.go:3", "a.go:3~a.go:8"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := engine.Explore(func(*engine.T) {
				var x int32
				var wg sync.WaitGroup
				if tc.otherReader {
					engine.WGAdd(&wg, 1, "a.go:9")
					engine.Go(func() {
						_ = engine.Load(&x, "a.go:8")
						engine.WGDone(&wg, "a.go:10")
					}, "a.go:11")
				}
				engine.WGAdd(&wg, 1, "a.go:4")
				engine.Go(func() {
					engine.AtomicStoreInt32(&x, 1, "a.go:3")
					engine.WGDone(&wg, "a.go:5")
				}, "a.go:6")
				_ = engine.Load(&x, "a.go:1")
				if tc.otherReader {
					engine.Gosched("a.go:12") // the other reader, the first goroutine after the body, reads
				}
				_ = engine.AtomicLoadInt32(&x, "a.go:2")
				engine.WGWait(&wg, "a.go:7")
			}, engine.Config{Strategy: firstEnabled(), Schedules: 1, Races: true, Points: engine.PointsAll})
			if rep.First != nil || rep.Err != nil {
				t.Fatalf("bug %v, error %v", rep.First, rep.Err)
			}
			if got := racePairs(rep); !slices.Equal(got, tc.want) {
				t.Errorf("races %q, want %q", got, tc.want)
			}
		})
	}
}
