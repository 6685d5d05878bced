package strategy

import (
	"maps"
	"math"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
)

// TestPOSBatchesKeepTheDistribution runs programs under POS as pos.go has it and under POS in
// batches (posscale.go) — from the first decision, or from the first with three or four
// goroutines enabled, which switches with priorities drawn and reassigned in pos.go's form —,
// and checks that every schedule comes with the same frequency in both (sameDistribution):
// batches change which random draws make a schedule, not how likely it is.
func TestPOSBatchesKeepTheDistribution(t *testing.T) {
	tests := []struct {
		name string
		body func(*engine.T)
		n    int
		from int // scaleFrom
	}{
		{"reassignment", reassignmentExample, 6000, 1},
		{"raceScenario", raceScenario, 12000, 1},
		{"raceScenario from 3", raceScenario, 12000, 3},
		{"selectWhileSending", selectWhileSending, 12000, 1},
		{"lockers(3)", lockers(3), 12000, 1},
		{"lockers(3) from 3", lockers(3), 12000, 3},
		{"blockedWriters", blockedWriters, 12000, 1},
		{"blockedWriters from 3", blockedWriters, 12000, 3},
		{"staggered from 3", staggered, 12000, 3},
		{"staggered from 4", staggered, 12000, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			exact := NewPOS(5)
			exact.scaleFrom = math.MaxInt
			batched := NewPOS(6)
			batched.scaleFrom = tc.from
			exactSpy, batchedSpy := &scaleSpy{POS: exact}, &scaleSpy{POS: batched}
			a, _ := schedules(t, tc.body, exactSpy, tc.n)
			b, _ := schedules(t, tc.body, batchedSpy, tc.n)
			if exactSpy.scaled != 0 || batchedSpy.scaled < tc.n/10 {
				t.Fatalf("executions in batches: %d in pos.go's form, %d of %d batched",
					exactSpy.scaled, batchedSpy.scaled, tc.n)
			}
			sameDistribution(t, "schedule", countOf(a), countOf(b), tc.n)
		})
	}
}

// scaleSpy counts the executions that ended in batches.
type scaleSpy struct {
	*POS
	scaled int
}

func (s *scaleSpy) End(r *engine.Result) {
	if s.scale.active {
		s.scaled++
	}
	s.POS.End(r)
}

func countOf(runs []string) map[string]int {
	c := map[string]int{}
	for _, r := range runs {
		c[r]++
	}
	return c
}

// lockers has n goroutines lock one mutex, write, unlock, while the body writes a variable of
// its own: waiters enabled and disabled together, and a goroutine that races with none.
func lockers(n int) func(*engine.T) {
	return func(t *engine.T) {
		var mu sync.Mutex
		total, own := 0, 0
		fs := make([]func(), n)
		for i := range fs {
			fs[i] = func() {
				engine.Lock(&mu, "lock")
				engine.Write(unsafe.Pointer(&total), "write total")
				total++
				engine.Unlock(&mu, "unlock")
			}
		}
		engine.GoAll(fs, "go")
		for range 2 {
			engine.Write(unsafe.Pointer(&own), "write own")
			own++
		}
	}
}

// blockedWriters has two goroutines wait to receive from a channel while a third reads a
// variable the first two write after, and the body sends twice: goroutines whose priorities
// are drawn, then disabled while others are compared, then enabled again.
func blockedWriters(t *engine.T) {
	c := engine.MakeChan[int](0, "make")
	var x int
	engine.GoAll([]func(){
		func() { engine.Recv(c, "recv"); engine.Write(unsafe.Pointer(&x), "write x"); x = 1 },
		func() { engine.Recv(c, "recv"); engine.Write(unsafe.Pointer(&x), "write x"); x = 2 },
		func() { engine.Read(unsafe.Pointer(&x), "read x"); _ = x },
	}, "go")
	engine.Send(c, 1, "send")
	engine.Send(c, 2, "send")
}

// TestPOSBatchesWithGoroutinesDisabled drives POS through decisions whose enabled goroutines
// come and go with no operation on any object (as when the fairness rule offers one goroutine,
// or a timer enables a sleeper): a batch's members disabled at a decision keep what was known
// of them, and the picks must be distributed as pos.go's.
//
// With at most two batches, the smallest is drawn one by one at each decision, and with a heap
// slack of 0 the heap is compacted at every decision: neither may change the distribution.
func TestPOSBatchesWithGoroutinesDisabled(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		maxBatches, heapSlack int
	}{
		{"defaults", posMaxBatches, posHeapSlack},
		{"few batches, heap compacted at every decision", 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testPOSBatchesWithGoroutinesDisabled(t, tc.maxBatches, tc.heapSlack)
		})
	}
}

func testPOSBatchesWithGoroutinesDisabled(t *testing.T, maxBatches, heapSlack int) {
	const n = 20000
	all := []engine.GID{0, 1, 2, 3, 4, 5}
	lists := [][]engine.GID{all, {2, 3}, all, {1, 4}, all, {5}, {0, 3, 5}}
	run := func(p *POS) map[string]int {
		c := map[string]int{}
		for range n {
			p.Begin()
			var picks []byte
			for i, l := range lists {
				d := (&engine.Decision{Step: i + 1, Goroutines: 6}).WithEnabled(l...)
				picks = append(picks, byte('0'+p.Pick(d)))
			}
			c[string(picks)]++
		}
		return c
	}
	exact := NewPOS(7)
	exact.scaleFrom = math.MaxInt
	batched := NewPOS(8)
	batched.scaleFrom = 1
	batched.scale.maxBatches, batched.scale.heapSlack = maxBatches, heapSlack
	sameDistribution(t, "picks", run(exact), run(batched), n)
}

// sameDistribution checks that two samples of n outcomes each, counted in a and b, come from
// one distribution: each outcome's two counts agree within 4.5σ of their difference, and the
// chi-square of all of them is below the 99.99th percentile for its degrees of freedom
// (Wilson–Hilferty's approximation).
func sameDistribution(t *testing.T, what string, a, b map[string]int, n int) {
	t.Helper()
	keys := slices.Sorted(maps.Keys(a))
	for s := range b {
		if _, ok := a[s]; !ok {
			keys = append(keys, s)
		}
	}
	if len(keys) < 3 {
		t.Fatalf("only %d outcomes: the program does not test the choice", len(keys))
	}
	chi2 := 0.0
	for _, s := range keys {
		x, y := float64(a[s]), float64(b[s])
		chi2 += (x - y) * (x - y) / (x + y)
		if math.Abs(x-y) > 4.5*math.Sqrt(x+y) {
			t.Errorf("%s %q: %v times in pos.go's form, %v in batches, of %d each", what, s, x, y, n)
		}
	}
	df := float64(len(keys) - 1)
	limit := df * math.Pow(1-2/(9*df)+3.719*math.Sqrt(2/(9*df)), 3)
	t.Logf("%d outcomes, chi-square %.1f (99.99th percentile %.1f)", len(keys), chi2, limit)
	if chi2 > limit {
		t.Errorf("chi-square %.1f with %v degrees of freedom, above %.1f", chi2, df, limit)
	}
}

// staggered starts three goroutines one at a time, the body writing a variable of its own
// between: goroutines whose priorities were drawn and kept (they race with nothing the others
// do) while the next are started, so that batches begin with priorities drawn in pos.go's
// form.
func staggered(t *engine.T) {
	var x, own int
	for range 3 {
		engine.Go(func() {
			mine := 0
			engine.Write(unsafe.Pointer(&mine), "write mine")
			mine++
			engine.Write(unsafe.Pointer(&x), "write x")
			x++
		}, "go")
		engine.Write(unsafe.Pointer(&own), "write own")
		own++
	}
}
