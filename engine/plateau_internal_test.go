package engine

import (
	"testing"
	"time"
)

// TestPairCoverage: a pair is two operations in a row on one object, named by their kinds and
// positions and whether one goroutine made both; the same pairs on other objects (another
// execution's addresses) are nothing new, a new order of them is.
func TestPairCoverage(t *testing.T) {
	var p positions
	step := func(obj uintptr, g GID, op OpKind, pos Pos) traceStep {
		return traceStep{obj: obj, g: g, code: traceCode(op, p.id(pos))}
	}
	lockUnlock := func(obj uintptr, first, second GID) []traceStep {
		return []traceStep{
			step(obj, first, OpLock, "a.go:1"), step(obj, first, OpUnlock, "a.go:2"),
			step(obj, second, OpLock, "a.go:1"), step(obj, second, OpUnlock, "a.go:2"),
		}
	}
	var c pairCoverage
	// lock→unlock by one goroutine, unlock→lock by another.
	if got := c.add(lockUnlock(0x100, 1, 2)); got != 2 || c.covered() != 2 {
		t.Fatalf("first execution: %d new, %d covered; want 2, 2", got, c.covered())
	}
	if got := c.add(lockUnlock(0x200, 2, 1)); got != 0 {
		t.Errorf("the same pairs on another object, goroutines swapped: %d new, want 0", got)
	}
	// One goroutine locks twice in a row: unlock→lock by the same goroutine is a new pair.
	if got := c.add(lockUnlock(0x300, 1, 1)); got != 1 || c.covered() != 3 {
		t.Errorf("one goroutine twice: %d new, %d covered; want 1, 3", got, c.covered())
	}
	// Data choices and steps on no object make no pair, nor do the objects of the previous
	// execution: each execution starts with no operation before its first.
	choice := traceStep{obj: 0x100, g: 1, code: traceChoice | traceCode(OpLock, p.id("a.go:9"))}
	if got := c.add([]traceStep{step(0x100, 1, OpUnlock, "a.go:2"), choice, step(0, 1, OpYield, "a.go:3")}); got != 0 {
		t.Errorf("one operation, a choice and a yield: %d new, want 0", got)
	}
	// Many objects: the table of last operations grows without losing any.
	var many []traceStep
	for i := range 1000 {
		many = append(many, step(uintptr(0x1000+8*i), 1, OpWrite, "b.go:1"))
	}
	for i := range 1000 {
		many = append(many, step(uintptr(0x1000+8*i), 2, OpRead, "b.go:2"))
	}
	if got := c.add(many); got != 1 {
		t.Errorf("a write then a read of each of 1000 objects: %d new, want 1", got)
	}
}

// TestPlateauRule: with a scheduling choice, the exploration stops once the executions since
// the last one that showed something new number max(floor, that one's number); the first
// execution is new; without a choice, a test runs once, or PlateauDataOnly more times than
// its last new one when it draws math/rand values.
func TestPlateauRule(t *testing.T) {
	for _, tc := range []struct {
		name  string
		floor int
		fresh []int // the executions that showed something new
		data  bool  // no choice, math/rand values
		one   bool  // no choice, no values
		stop  int   // the execution after which it stops
	}{
		{"nothing new after the first", 10, nil, false, false, 11},
		{"new at 1 to 3", 10, []int{2, 3}, false, false, 13},
		{"new every 5th up to 25: as long again", 10, []int{5, 10, 15, 20, 25}, false, false, 50},
		{"new every 5th up to 40", 10, []int{5, 10, 15, 20, 25, 30, 35, 40}, false, false, 80},
		{"a gap as long as the executions before: 40 is too late", 10, []int{5, 15, 40}, false, false, 30},
		{"floor 0: never", 0, nil, false, false, 0},
		{"one schedule", 10, nil, false, true, 1},
		{"math/rand values", 1000, []int{7}, true, false, 7 + PlateauDataOnly},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p plateau
			res := &Result{Goroutines: 2}
			if tc.data || tc.one {
				res.Goroutines = 1
			}
			res.DrewData = tc.data
			fresh := map[int]bool{}
			for _, n := range tc.fresh {
				fresh[n] = true
			}
			stopped := 0
			for n := 1; n <= 200 && stopped == 0; n++ {
				p.note(n, res, fresh[n])
				if _, stop := p.reached(tc.floor, n, 0, 0); stop {
					stopped = n
				}
			}
			if stopped != tc.stop {
				t.Errorf("stopped after %d executions, want %d", stopped, tc.stop)
			}
		})
	}
}

// TestPlateauTimedFloor: with a time for the floor, the floor is the executions that time
// holds at their mean duration when fewer than the floor, never below PlateauMin; the
// scale-free term is as before. The clock is the executions' duration, given.
func TestPlateauTimedFloor(t *testing.T) {
	const floorTime = 250 * time.Millisecond // a twentieth of the default 5s
	for _, tc := range []struct {
		name  string
		each  time.Duration // every execution's duration
		fresh []int
		stop  int
	}{
		// misc/safestack: 60µs an execution, new pairs up to 53 and then at 978.
		{"short executions keep the floor", 60 * time.Microsecond, []int{2, 3, 22, 53, 978}, 978 + 1000},
		{"250µs executions: 1000 still fit", 250 * time.Microsecond, []int{53}, 53 + 1000},
		{"500µs executions: 500", 500 * time.Microsecond, []int{53}, 53 + 500},
		{"3ms executions: PlateauMin", 3 * time.Millisecond, nil, 1 + PlateauMin},
		{"3ms, new up to 170: as long again", 3 * time.Millisecond, []int{60, 120, 170}, 340},
		{"43ms executions, new at 30: PlateauMin", 43 * time.Millisecond, []int{30}, 30 + PlateauMin},
		{"no time: the floor", 0, []int{53}, 53 + 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p plateau
			res := &Result{Goroutines: 2}
			fresh := map[int]bool{}
			for _, n := range tc.fresh {
				fresh[n] = true
			}
			stopped := 0
			for n := 1; n <= 5000 && stopped == 0; n++ {
				p.note(n, res, fresh[n])
				if _, stop := p.reached(DefaultPlateau, n, floorTime, time.Duration(n)*tc.each); stop {
					stopped = n
				}
			}
			if stopped != tc.stop {
				t.Errorf("stopped after %d executions, want %d", stopped, tc.stop)
			}
		})
	}
	if got := timedFloor(50, 10, floorTime, time.Second); got != 50 {
		t.Errorf("a floor below PlateauMin: %d, want it kept (50)", got)
	}
}

// TestExecutionsLeft: the rest of a time budget at the mean duration of the executions so
// far, no more than the schedules left; not known (-1) without a time budget or before
// PaceSamples executions.
func TestExecutionsLeft(t *testing.T) {
	const s = time.Second
	for _, tc := range []struct {
		budget, elapsed time.Duration
		n, schedules    int
		want            int
	}{
		{0, s, 10, 0, -1},
		{5 * s, 0, 0, 0, -1},
		{5 * s, s, 10, 0, 40},
		{5 * s, s, 10, 30, 20},
		{5 * s, 6 * s, 10, 0, 0},
		{5 * s, 5 * s, 10, 0, 0},
		{5 * s, 0, 10, 12, 2},
		{5 * s, 100 * time.Millisecond, 1, 0, -1},
		{5 * s, time.Second, PaceSamples - 1, 0, -1},
		{5 * s, time.Second, PaceSamples, 0, 4 * PaceSamples},
	} {
		if got := ExecutionsLeft(tc.budget, tc.elapsed, tc.n, tc.schedules); got != tc.want {
			t.Errorf("ExecutionsLeft(%v, %v, %d, %d) = %d, want %d", tc.budget, tc.elapsed, tc.n, tc.schedules, got, tc.want)
		}
	}
}
