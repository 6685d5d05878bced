package engine_test

import (
	"fmt"
	"hash"
	"hash/fnv"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// recorder hashes every decision a strategy is offered (the step, the enabled goroutines, the
// last one) and the goroutine it picks.
type recorder struct {
	engine.Strategy
	sum hash.Hash64
}

func (r *recorder) Pick(d *engine.Decision) engine.GID {
	g := r.Strategy.Pick(d)
	fmt.Fprint(r.sum, d.Step, d.Enabled(), d.Last, d.LastEnabled, g, ";")
	return g
}

// contended is a pool of workers that lock one mutex in turn, some holding it across a sleep
// (the clock jumps while the others wait) or trying it first, with a synctest bubble whose
// Wait records what is durably blocked: what the waiters' since and jumps decide (fairness,
// parking) is exercised with more waiters than notify flips one by one.
func contended(t *engine.T) {
	engine.SynctestTest(t, func(t *engine.T) {
		var mu sync.Mutex
		x := 0
		for i := range 14 {
			engine.Go(func() {
				for j := range 3 {
					if i%5 == 0 && engine.TryLock(&mu, "c.go:1") {
						engine.Gosched("c.go:2")
					} else {
						engine.Lock(&mu, "c.go:3")
					}
					engine.Write(unsafe.Pointer(&x), "c.go:4")
					x++
					if j == 1 && i%3 == 0 {
						engine.Sleep(time.Microsecond, "c.go:5")
					}
					engine.Unlock(&mu, "c.go:6")
				}
			}, "c.go:7")
		}
		engine.SynctestWait("c.go:8")
	}, "c.go:0")
}

// TestGroupFlipsAreExact: flipping a mutex's waiters a word at a time, with their since and
// jumps kept by the queue, offers the strategies exactly the decisions that flipping them one
// by one does, under random walk and under PCT (whose favourites starve the others into the
// fairness rule), with a small fairness bound.
func TestGroupFlipsAreExact(t *testing.T) {
	for _, name := range []string{"random", "pct"} {
		t.Run(name, func(t *testing.T) {
			run := func(groups bool) (uint64, *engine.Report) {
				was := engine.SetGroupFlips(groups)
				defer engine.SetGroupFlips(was)
				s, err := strategy.New(name, nil, 7)
				if err != nil {
					t.Fatal(err)
				}
				r := &recorder{Strategy: s, sum: fnv.New64a()}
				rep := engine.Explore(contended, engine.Config{Strategy: r, Schedules: 300, FairSteps: 4})
				return r.sum.Sum64(), rep
			}
			grouped, rep := run(true)
			if rep.First != nil {
				t.Fatalf("bug: %v", rep.First.Bug)
			}
			oneByOne, _ := run(false)
			if grouped != oneByOne {
				t.Errorf("the decisions differ: %#x with group flips, %#x one by one", grouped, oneByOne)
			}
		})
	}
}

// enabledChecker checks, at every decision, that the enabled goroutines a strategy reads one
// at a time (NumEnabled, EnabledAt: counted and found in the enabled set, without the list)
// are the list Enabled builds, in id order, that IsEnabled agrees with it for every
// goroutine, and that each mutex's queue counts its enabled waiters right.
type enabledChecker struct {
	engine.Strategy
	t      *testing.T
	failed bool
}

func (c *enabledChecker) Pick(d *engine.Decision) engine.GID {
	if !c.failed {
		var oneByOne []engine.GID
		for i := range d.NumEnabled() {
			oneByOne = append(oneByOne, d.EnabledAt(i))
		}
		list := d.Enabled()
		var member []engine.GID
		for g := range engine.GID(d.Goroutines) {
			if d.IsEnabled(g) {
				member = append(member, g)
			}
		}
		var walked []engine.GID
		for g := d.NextEnabled(0); g != engine.NoGoroutine; g = d.NextEnabled(g + 1) {
			walked = append(walked, g)
		}
		for g := range engine.GID(d.Goroutines + 1) {
			if want := sort.Search(len(list), func(i int) bool { return list[i] >= g }); d.EnabledBefore(g) != want {
				c.t.Errorf("step %d: EnabledBefore(%v) = %d, want %d (enabled %v)", d.Step, g, d.EnabledBefore(g), want, list)
				c.failed = true
			}
		}
		if !d.UniformCountsAgree() {
			c.t.Errorf("step %d: a mutex's queue miscounts its enabled waiters", d.Step)
			c.failed = true
		}
		if !slices.Equal(oneByOne, list) || !slices.Equal(member, list) || !slices.Equal(walked, list) || !slices.IsSorted(list) {
			c.t.Errorf("step %d: EnabledAt gives %v, Enabled %v, IsEnabled %v, NextEnabled %v", d.Step, oneByOne, list, member, walked)
			c.failed = true
		}
	}
	return c.Strategy.Pick(d)
}

// TestEnabledOneByOneIsTheList: the count, the i-th enabled goroutine, the walk by
// NextEnabled and the ranks of EnabledBefore, which the engine answers without the list when
// waiters are flipped a word at a time or the list is long, are exactly the list, through
// mutexes with many waiters, a synctest bubble and the fairness rule.
func TestEnabledOneByOneIsTheList(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func(*engine.T)
	}{
		{"contended", contended},
		{"100 goroutines", manyGoroutines(100)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &enabledChecker{Strategy: strategy.NewRandom(3), t: t}
			rep := engine.Explore(tc.body, engine.Config{Strategy: c, Schedules: 50, FairSteps: 4})
			if rep.First != nil {
				t.Fatalf("bug: %v", rep.First.Bug)
			}
		})
	}
}

// endedChecker records, at every decision after goroutine 1 was picked for its last operation
// (the decision that follows is its exit's), what Decision.Pending says of it.
type endedChecker struct {
	engine.Strategy
	lastOfG1 bool // G1's last operation was picked
	ended    []engine.Op
}

func (c *endedChecker) Pick(d *engine.Decision) engine.GID {
	if c.lastOfG1 {
		c.ended = append(c.ended, d.Pending(1))
	}
	g := c.Strategy.Pick(d)
	if g == 1 && d.Pending(1).Pos == "e.go:3" {
		c.lastOfG1 = true
	}
	return g
}

// TestPendingOfEndedGoroutineIsZero: a goroutine that has ended will execute nothing more, and
// Decision.Pending says so with the zero Op, not the last operation it executed (POS redrew
// the priority of every ended goroutine whose last operation touched the object of a step).
func TestPendingOfEndedGoroutineIsZero(t *testing.T) {
	body := func(t *engine.T) {
		var x int
		var wg sync.WaitGroup
		engine.WGAdd(&wg, 1, "e.go:1")
		engine.Go(func() {
			engine.Write(unsafe.Pointer(&x), "e.go:2")
			x = 1
			engine.WGDone(&wg, "e.go:3")
		}, "e.go:4")
		engine.WGWait(&wg, "e.go:5")
		engine.Write(unsafe.Pointer(&x), "e.go:6")
		x = 2
	}
	c := &endedChecker{Strategy: strategy.NewRandom(1)}
	rep := engine.Explore(body, engine.Config{Strategy: c, Schedules: 1})
	if rep.First != nil {
		t.Fatalf("bug: %v", rep.First.Bug)
	}
	if len(c.ended) == 0 {
		t.Fatal("no decision after G1 ended")
	}
	for i, op := range c.ended {
		if op != (engine.Op{}) {
			t.Errorf("decision %d after G1 ended: Pending(G1) = %v, want the zero Op", i, op)
		}
	}
}

// starveWatcher picks the enabled goroutine with the lowest id, and checks at each decision
// where the fairness rule looked for a starving goroutine that it offered what a pass over
// all of them finds.
type starveWatcher struct {
	t                *testing.T
	checked, starved int
	disagreedAtStep  int
}

func (s *starveWatcher) Name() string                { return "lowest-first" }
func (s *starveWatcher) Params() map[string]string   { return nil }
func (s *starveWatcher) Begin() bool                 { return true }
func (s *starveWatcher) Choose(c *engine.Choice) int { return 0 }
func (s *starveWatcher) End(*engine.Result)          {}
func (s *starveWatcher) Pick(d *engine.Decision) engine.GID {
	if checked, starved, agrees := d.StarvationAgrees(); checked {
		s.checked++
		if starved {
			s.starved++
		}
		if !agrees && s.disagreedAtStep == 0 {
			s.disagreedAtStep = d.Step
		}
	}
	return d.EnabledAt(0)
}

// TestStarvationFloorFindsWhatAPassFinds: the fairness rule skips its pass over the enabled
// goroutines while the longest wait cannot have reached the bound (fair.go's floor); at every
// check it must offer what the pass finds. Two goroutines hand a channel back and forth while
// higher-numbered ones, enabled all along, are passed over by a strategy that always picks the
// lowest id: two that take a mutex (its waiters are enabled together) and two that write
// variables of their own, so that goroutines starve at consecutive checks.
func TestStarvationFloorFindsWhatAPassFinds(t *testing.T) {
	body := func(t *engine.T) {
		ping := engine.MakeChan[int](0, "f.go:1")
		pong := engine.MakeChan[int](0, "f.go:2")
		var mu sync.Mutex
		var wg sync.WaitGroup
		x := 0
		engine.WGAdd(&wg, 6, "f.go:3")
		engine.Go(func() {
			for i := range 300 {
				engine.Send(ping, i, "f.go:4")
				engine.Recv(pong, "f.go:5")
			}
			engine.WGDone(&wg, "f.go:6")
		}, "f.go:7")
		engine.Go(func() {
			for range 300 {
				v := engine.Recv(ping, "f.go:8")
				engine.Send(pong, v, "f.go:9")
			}
			engine.WGDone(&wg, "f.go:10")
		}, "f.go:11")
		for range 2 {
			engine.Go(func() {
				for range 20 {
					engine.Lock(&mu, "f.go:12")
					engine.Write(unsafe.Pointer(&x), "f.go:13")
					x++
					engine.Unlock(&mu, "f.go:14")
				}
				engine.WGDone(&wg, "f.go:15")
			}, "f.go:16")
		}
		for range 2 {
			engine.Go(func() {
				own := 0
				for range 20 {
					engine.Write(unsafe.Pointer(&own), "f.go:17")
					own++
				}
				engine.WGDone(&wg, "f.go:18")
			}, "f.go:19")
		}
		engine.WGWait(&wg, "f.go:20")
	}
	s := &starveWatcher{t: t}
	rep := engine.Explore(body, engine.Config{Strategy: s, Schedules: 1, FairSteps: 30})
	if rep.Err != nil {
		t.Fatal(rep.Err)
	}
	if rep.First != nil {
		t.Fatalf("bug: %v", rep.First.Bug)
	}
	t.Logf("%d checks, %d found a goroutine starving", s.checked, s.starved)
	if s.disagreedAtStep != 0 {
		t.Fatalf("step %d: the decision does not offer what a pass over the enabled goroutines finds",
			s.disagreedAtStep)
	}
	if s.starved == 0 || s.checked <= s.starved {
		t.Fatalf("%d checks, %d starving: the program does not test both outcomes", s.checked, s.starved)
	}
}
