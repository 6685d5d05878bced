package strategy

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
)

// posSpy checks every decision of POS against the rule of Yuan et al. (CAV 2018): after
// a step, exactly the goroutines whose pending event is dependent on it (the goroutine that
// ran among them) get a fresh priority, every other priority is unchanged, new goroutines
// get one in [0, 1), and the enabled goroutine with the highest priority runs.
//
// POS draws a fresh priority when it is first compared: the spy keeps, for each goroutine,
// whether its event was reassigned (or is new) since its priority was last seen at a decision
// where it was enabled, and checks at each decision that every enabled goroutine's priority
// is fresh (in [0, 1), and not the one seen last) exactly when it was reassigned, and the same
// otherwise. The fresh ones are the execution generator's next draws in goroutine order, and
// nothing else is drawn: no priority is drawn that no decision compares.
//
// Pick runs on the engine's goroutines, where t.Fatal must not be called: the first
// violation is kept in err, for the test to report.
type posSpy struct {
	*POS
	err      error
	prev     []float64 // POS's priorities after the previous decision
	seen     []float64 // each goroutine's priority when last compared (-1: never)
	dirty    []bool    // reassigned (or new) since seen
	redrawn  int       // priorities checked fresh, over all decisions
	kept     int       // priorities checked unchanged
	created  int       // new goroutines
	watchers []func(d *engine.Decision, before, after []float64)
}

func (s *posSpy) Begin() bool {
	s.prev, s.seen, s.dirty = s.prev[:0], s.seen[:0], s.dirty[:0]
	return s.POS.Begin()
}

func (s *posSpy) failf(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf(format, args...)
	}
}

func (s *posSpy) Pick(d *engine.Decision) engine.GID {
	last, lastOp := s.last, s.lastOp
	for i := range s.dirty {
		if gi := engine.GID(i); last >= 0 && Dependent(last, lastOp, gi, d.Pending(gi)) {
			s.dirty[i] = true
		}
	}
	for len(s.dirty) < d.Goroutines {
		s.created++
		s.dirty = append(s.dirty, true)
		s.seen = append(s.seen, -1)
	}
	draws := *s.pcg
	rng := rand.New(&draws)
	g := s.POS.Pick(d)
	prio := s.prio
	if len(prio) != d.Goroutines {
		s.failf("step %d: %d priorities for %d goroutines", d.Step, len(prio), d.Goroutines)
		return g
	}
	for _, e := range d.Enabled() {
		p := prio[e]
		if s.dirty[e] {
			s.redrawn++
			if p < 0 || p >= 1 || p == s.seen[e] {
				s.failf("step %d: %v (pending %v) was reassigned but has priority %v (seen %v)", d.Step, e, d.Pending(e), p, s.seen[e])
			}
			if want := rng.Float64(); p != want {
				s.failf("step %d: %v (pending %v) was given %v, not the next draw %v", d.Step, e, d.Pending(e), p, want)
			}
			s.dirty[e] = false
		} else {
			s.kept++
			if p != s.seen[e] {
				s.failf("step %d: %v (pending %v) was not reassigned since its priority %v was seen, but has %v", d.Step, e, d.Pending(e), s.seen[e], p)
			}
		}
		s.seen[e] = p
		if p > prio[g] {
			s.failf("step %d: picked %v (priority %v), %v has %v", d.Step, g, prio[g], e, p)
		}
	}
	if draws != *s.pcg {
		s.failf("step %d: POS drew priorities that no decision compares", d.Step)
	}
	for _, w := range s.watchers {
		w(d, s.prev, prio)
	}
	s.prev = append(s.prev[:0], prio...)
	return g
}

// TestPOSReassignsPriorities runs POS on programs with memory accesses, mutexes and channels
// and checks every decision with posSpy.
func TestPOSReassignsPriorities(t *testing.T) {
	tests := []struct {
		name string
		body func(*engine.T)
	}{
		{"seedExample(4)", seedExample(4)},
		{"philosophers(3, 2)", philosophers(3, 2)},
		{"pipeline(2, 3)", pipeline(2, 3)},
		{"readersWriter(2, 2)", readersWriter(2, 2)},
		{"selectors", selectors},
		{"selectWhileSending", selectWhileSending},
		{"contended", manyLockers(40)},
	}
	for _, tc := range tests {
		s := &posSpy{POS: NewPOS(3)}
		exploreN(t, tc.body, s, 200)
		if s.err != nil {
			t.Fatalf("%s: %v", tc.name, s.err)
		}
		t.Logf("%-20s priorities redrawn %d, kept %d, new %d", tc.name, s.redrawn, s.kept, s.created)
		if s.redrawn == 0 || s.kept == 0 || s.created == 0 {
			t.Errorf("%s: the program does not exercise all three cases", tc.name)
		}
	}
}

// raceScenario: G1 writes x and then y; G2 and G3 read x; G4 writes z.
var raceScenario = writeXY(2, true)

// reassignmentExample is TestPOSReassignmentChangesTheDistribution's program: G1 writes x and
// y, G2 reads x.
var reassignmentExample = writeXY(1, false)

// writeXY is a program whose G1 writes x and then y, the next readers goroutines read x, and,
// with writeZ, one more writes z, which nothing else touches.
func writeXY(readers int, writeZ bool) func(*engine.T) {
	return func(t *engine.T) {
		var x, y, z int
		fs := []func(){func() {
			engine.Write(unsafe.Pointer(&x), "write x")
			x = 1
			engine.Write(unsafe.Pointer(&y), "write y")
			y = 1
		}}
		for range readers {
			fs = append(fs, func() { engine.Read(unsafe.Pointer(&x), "read x"); _ = x })
		}
		if writeZ {
			fs = append(fs, func() { engine.Write(unsafe.Pointer(&z), "write z"); z = 1 })
		}
		engine.GoAll(fs, "go")
	}
}

// TestPOSReassignmentScenario spells the rule out on raceScenario: right after G1's write of
// x, G1 (its next event) and the readers of x still pending get fresh priorities, and the
// writer of z keeps its own; after the go statement every goroutine it created has one.
func TestPOSReassignmentScenario(t *testing.T) {
	s := &posSpy{POS: NewPOS(9)}
	afterWriteX, afterGo := 0, 0
	s.watchers = append(s.watchers, func(d *engine.Decision, before, after []float64) {
		switch {
		case d.Last == 0 && d.Step == 2: // the go statement
			afterGo++
			if len(after) != 5 {
				s.failf("after the go statement: priorities %v", after)
			}
		case d.Last == 1 && d.IsEnabled(1) && d.Pending(1).Pos == "write y": // G1 just wrote x
			afterWriteX++
			if after[1] == before[1] || after[4] != before[4] {
				s.failf("after write x: G1 %v→%v, G4 %v→%v", before[1], after[1], before[4], after[4])
			}
			for _, r := range []engine.GID{2, 3} {
				if d.IsEnabled(r) && after[r] == before[r] {
					s.failf("after write x: pending reader %v kept priority %v", r, after[r])
				}
			}
		}
	})
	exploreN(t, raceScenario, s, 500)
	if s.err != nil {
		t.Fatal(s.err)
	}
	t.Logf("checked %d decisions after the go statement, %d after write x", afterGo, afterWriteX)
	if afterGo != 500 || afterWriteX != 500 {
		t.Fatalf("checked %d decisions after the go statement and %d after write x, want 500 each", afterGo, afterWriteX)
	}
}

// TestPOSReassignmentChangesTheDistribution measures what the reassignment does, on G1:
// write x, write y and G2: read x. Given that G1's write of x runs first (probability 1/2),
// G2's event lost to it. Without reassignment (BasicPOS) its priority would stay the lower
// of two uniform draws, and it would beat G1's next event (a fresh draw) with probability
// 1/3: the schedule G1 G2 G1 would have probability 1/6. POS redraws it, as it races with
// the write: 1/2 · 1/2 = 1/4.
func TestPOSReassignmentChangesTheDistribution(t *testing.T) {
	const n = 4000
	runs, _ := schedules(t, reassignmentExample, NewPOS(21), n)
	count := map[string]int{}
	for _, r := range runs {
		count[r]++
	}
	want := map[string]float64{
		"G0 G2 G1 G1 ": 0.5,
		"G0 G1 G2 G1 ": 0.25, // 1/6 without the reassignment
		"G0 G1 G1 G2 ": 0.25, // 1/3 without the reassignment
	}
	for _, s := range slices.Sorted(maps.Keys(count)) {
		if _, ok := want[s]; !ok {
			t.Errorf("unexpected schedule %q (%d times)", s, count[s])
		}
	}
	for _, s := range []string{"G0 G2 G1 G1 ", "G0 G1 G2 G1 ", "G0 G1 G1 G2 "} {
		checkRate(t, fmt.Sprintf("schedule %q", s), count[s], n, want[s])
	}
}

// manyLockers has n goroutines each lock one mutex, write a shared counter and unlock, with a
// read of a variable of its own between, while the body writes a variable none of them reads:
// many events pending on one object at once, which every Lock and Unlock races with.
func manyLockers(n int) func(*engine.T) {
	return func(t *engine.T) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		total, other := 0, 0
		engine.WGAdd(&wg, n, "add")
		for range n {
			engine.Go(func() {
				own := 0
				engine.Read(unsafe.Pointer(&own), "read own")
				engine.Lock(&mu, "lock")
				engine.Write(unsafe.Pointer(&total), "write total")
				total++
				engine.Unlock(&mu, "unlock")
				engine.WGDone(&wg, "done")
			}, "go")
			engine.Write(unsafe.Pointer(&other), "write other")
			other++
		}
		engine.WGWait(&wg, "wait")
	}
}

// selectWhileSending has a goroutine wait in a select on two channels, one of them ready from
// the start, while another sends to a third channel and a third writes a variable of its own:
// a select pending and enabled while channel operations on other channels run, and channel
// operations pending while the select runs — dependent only because a select races with every
// channel operation (Dependent) — beside events that race with neither.
func selectWhileSending(t *engine.T) {
	a := engine.MakeChan[int](2, "make a")
	b := engine.MakeChan[int](1, "make b")
	c := engine.MakeChan[int](4, "make c")
	engine.Send(a, 0, "send a")
	engine.Send(a, 1, "send a")
	own := 0
	engine.GoAll([]func(){
		func() {
			for range 2 {
				engine.Select("select", false, engine.RecvCase(a), engine.RecvCase(b))
			}
		},
		func() {
			for i := range 3 {
				engine.Send(c, i, "send c")
			}
		},
		func() {
			for range 3 {
				engine.Write(unsafe.Pointer(&own), "write own")
				own++
			}
		},
	}, "go")
}
