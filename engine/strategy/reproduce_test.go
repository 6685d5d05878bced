package strategy_test

import (
	"path/filepath"
	"sync"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// TestEveryBugReplaysFromItsFile100Times is the reproducibility requirement: each bug
// that a strategy finds in the study's programs (and in a deadlock, a leak and a livelock) is
// saved as a schedule file, loaded back, and replayed 100 times; every replay reproduces the
// same bug at the same step.
func TestEveryBugReplaysFromItsFile100Times(t *testing.T) {
	deadlock := func(t *engine.T) {
		var a, b sync.Mutex
		engine.Go(func() {
			engine.Lock(&a, "dl.go:1")
			engine.Lock(&b, "dl.go:2")
			engine.Unlock(&b, "dl.go:3")
			engine.Unlock(&a, "dl.go:4")
		}, "dl.go:5")
		engine.Lock(&b, "dl.go:6")
		engine.Lock(&a, "dl.go:7")
		engine.Unlock(&a, "dl.go:8")
		engine.Unlock(&b, "dl.go:9")
	}
	leak := func(t *engine.T) {
		var mu sync.Mutex
		engine.Go(func() { engine.Lock(&mu, "lk.go:1") }, "lk.go:2")
		engine.Lock(&mu, "lk.go:3")
	}
	livelock := func(t *engine.T) {
		var flag int
		engine.Go(func() {
			for {
				engine.Read(unsafe.Pointer(&flag), "ll.go:1")
				if flag == 1 {
					return
				}
			}
		}, "ll.go:2")
		engine.Write(unsafe.Pointer(&flag), "ll.go:3")
		flag = 1
	}
	for _, tc := range []struct {
		name     string
		body     func(*engine.T)
		strategy func() engine.Strategy
		maxSteps int
		kind     engine.BugKind
	}{
		{"figure1/ipb", figure1, func() engine.Strategy { return strategy.NewIPB(-1) }, 0, engine.Panic},
		{"figure1/idb", figure1, func() engine.Strategy { return strategy.NewIDB(-1) }, 0, engine.Panic},
		{"figure1/dfs", figure1, func() engine.Strategy { return strategy.NewDFS() }, 0, engine.Panic},
		{"figure1/random", figure1, func() engine.Strategy { return strategy.NewRandom(1) }, 0, engine.Panic},
		{"figure2/pct", figure2, func() engine.Strategy { s, _ := strategy.New("pct", map[string]string{"d": "2"}, 1); return s }, 0, engine.Panic},
		{"figure2/ipb", figure2, func() engine.Strategy { return strategy.NewIPB(-1) }, 0, engine.Panic},
		{"deadlock/random", deadlock, func() engine.Strategy { return strategy.NewRandom(7) }, 0, engine.Deadlock},
		{"leak/dfs", leak, func() engine.Strategy { return strategy.NewDFS() }, 0, engine.Leak},
		{"livelock/dfs", livelock, func() engine.Strategy { return strategy.NewDFS() }, 200, engine.Livelock},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.strategy()
			info := engine.TestInfo{Package: "example.com/p", Name: tc.name}
			var file *schedule.File
			rep := engine.Explore(tc.body, engine.Config{Strategy: s, Schedules: 10_000, MaxSteps: tc.maxSteps,
				OnExecution: func(n int, r *engine.Result) {
					if r.Bug != nil && file == nil {
						file = engine.NewScheduleFile(r, info, s, n)
					}
				}})
			if rep.First == nil || rep.First.Bug.Kind != tc.kind {
				t.Fatalf("no %s found: %+v", tc.kind, rep)
			}
			path := filepath.Join(t.TempDir(), "bug.json")
			if err := file.Save(path); err != nil {
				t.Fatal(err)
			}
			loaded, err := schedule.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 100; i++ {
				r := engine.Run(tc.body, strategy.NewReplayFile(loaded), engine.Config{MaxSteps: engine.ReplayMaxSteps(loaded)})
				if err := engine.CheckReproduced(loaded, r); err != nil {
					t.Fatalf("replay %d: %v", i, err)
				}
				if r.Bug.Step != rep.First.Bug.Step || r.Bug.Kind != tc.kind {
					t.Fatalf("replay %d: %v, want %v", i, r.Bug, rep.First.Bug)
				}
			}
		})
	}
}
