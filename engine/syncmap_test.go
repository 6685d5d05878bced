package engine_test

import (
	"sync"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
)

// TestSyncMapEdges: a Store is synchronized before the Load that observes it, so data
// published through the map is not a race; a Load of another key orders nothing, so the same
// access is one. Each map operation is a scheduling point, so both orders of the Store and the
// Load are explored.
func TestSyncMapEdges(t *testing.T) {
	body := func(key string) func(*engine.T) {
		return func(t *engine.T) {
			var m sync.Map
			var data int
			var wg sync.WaitGroup
			engine.WGAdd(&wg, 1, "m.go:1")
			engine.Go(func() {
				defer engine.WGDone(&wg, "m.go:2")
				engine.Write(unsafe.Pointer(&data), "m.go:3")
				data = 42
				engine.SyncMapStore(&m, "ready", true, "m.go:4")
			}, "m.go:5")
			if _, ok := engine.SyncMapLoad(&m, key, "m.go:6"); ok || key != "ready" {
				engine.Read(unsafe.Pointer(&data), "m.go:7")
				_ = data
			}
			engine.WGWait(&wg, "m.go:8")
		}
	}
	rep := engine.Explore(body("ready"), engine.Config{Strategy: randomStrategy(4), Schedules: 200, Races: true})
	if rep.First != nil || len(rep.Races) != 0 || rep.Interleavings < 2 {
		t.Errorf("published through the map: bug %v, races %v, %d interleavings: want none, none, both orders", rep.First, rep.Races, rep.Interleavings)
	}
	rep = engine.Explore(body("other"), engine.Config{Strategy: randomStrategy(4), Schedules: 200, Races: true})
	if len(rep.Races) != 1 {
		t.Errorf("a load of another key: races %v, want the race on data", rep.Races)
	}
}

// TestPoolGetIsAChoice: Get after Put returns the value Put or a fresh one, both explored; the
// Put is synchronized before the Get that returns its value.
func TestPoolGetIsAChoice(t *testing.T) {
	seen := map[string]bool{}
	rep := engine.Explore(func(t *engine.T) {
		p := &sync.Pool{New: func() any { return new(int) }}
		var wg sync.WaitGroup
		engine.WGAdd(&wg, 1, "p.go:1")
		engine.Go(func() {
			defer engine.WGDone(&wg, "p.go:2")
			x := new(int)
			engine.Write(unsafe.Pointer(x), "p.go:3")
			*x = 7
			engine.PoolPut(p, x, "p.go:4")
		}, "p.go:5")
		engine.WGWait(&wg, "p.go:6")
		y := engine.PoolGet(p, "p.go:7").(*int)
		engine.Read(unsafe.Pointer(y), "p.go:8")
		if *y == 7 {
			seen["put"] = true
		} else {
			seen["fresh"] = true
		}
	}, engine.Config{Strategy: &alternating{funcStrategy: randomStrategy(9)}, Schedules: 50, Races: true})
	if rep.First != nil || len(rep.Races) != 0 || !seen["put"] || !seen["fresh"] {
		t.Errorf("bug %v, races %v, seen %v: want no bug, no race, both the value Put and a fresh one", rep.First, rep.Races, seen)
	}
}

// alternating is a random strategy whose data choices alternate between the first two
// alternatives from one choice to the next.
type alternating struct {
	*funcStrategy
	n int
}

func (a *alternating) Choose(c *engine.Choice) int {
	a.n++
	return a.n % 2
}

// TestWaitGroupAddFromZeroConcurrentWithWait: reusing a WaitGroup whose first Add is not
// ordered after a previous Wait is a race on the WaitGroup, as Go's detector reports it.
func TestWaitGroupAddFromZeroConcurrentWithWait(t *testing.T) {
	rep := engine.Explore(func(t *engine.T) {
		var wg sync.WaitGroup
		engine.WGAdd(&wg, 1, "w.go:1")
		engine.Go(func() { engine.WGWait(&wg, "w.go:3") }, "w.go:2")
		engine.WGDone(&wg, "w.go:4")
		engine.WGAdd(&wg, 1, "w.go:5")
		engine.WGDone(&wg, "w.go:6")
	}, engine.Config{Strategy: randomStrategy(2), Schedules: 100, Races: true, KeepGoing: true})
	found := false
	for _, r := range rep.Races {
		found = found || (r.A.Pos == "w.go:3" && r.B.Pos == "w.go:5") || (r.A.Pos == "w.go:5" && r.B.Pos == "w.go:3")
	}
	if !found {
		t.Errorf("races %v: want the Add at w.go:5 with the Wait at w.go:3", rep.Races)
	}
	// Adds ordered after the Wait returned: no race.
	rep = engine.Explore(func(t *engine.T) {
		var wg sync.WaitGroup
		engine.WGAdd(&wg, 1, "o.go:1")
		engine.Go(func() { engine.WGDone(&wg, "o.go:3") }, "o.go:2")
		engine.WGWait(&wg, "o.go:4")
		engine.WGAdd(&wg, 1, "o.go:5")
		engine.Go(func() { engine.WGDone(&wg, "o.go:7") }, "o.go:6")
		engine.WGWait(&wg, "o.go:8")
	}, engine.Config{Strategy: randomStrategy(2), Schedules: 100, Races: true})
	if rep.First != nil || len(rep.Races) != 0 {
		t.Errorf("a WaitGroup reused after Wait returned: bug %v, races %v", rep.First, rep.Races)
	}
}
