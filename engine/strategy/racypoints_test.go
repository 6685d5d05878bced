package strategy_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// TestRacesFirstSeenWhileExploringBecomePoints: with Config.Points racy and no racy access
// known (a detection phase that saw none), the race between the two halves of an update and a
// reader is seen in the first execution that runs them unordered; its accesses become
// scheduling points, a systematic strategy starts over on the new tree, and the torn value is
// found — in a schedule whose file lists the new points and replays. With the detector off
// nothing is learnt and the bug is out of reach.
func TestRacesFirstSeenWhileExploringBecomePoints(t *testing.T) {
	body := func(t *engine.T) {
		var x int
		var wg sync.WaitGroup
		engine.WGAdd(&wg, 1, "u.go:1")
		engine.Go(func() {
			engine.Store(&x, 1, "u.go:2") // the first half of the update
			engine.Store(&x, 2, "u.go:3") // the second
			engine.WGDone(&wg, "u.go:4")
		}, "u.go:5")
		if engine.Load(&x, "u.go:6") == 1 {
			t.Fatalf("read the half-done update")
		}
		engine.WGWait(&wg, "u.go:7")
	}
	for _, tc := range []struct {
		name string
		s    func() engine.Strategy
	}{
		{"random", func() engine.Strategy { return strategy.NewRandom(1) }},
		{"dfs", func() engine.Strategy { return strategy.NewDFS() }},
		{"idb", func() engine.Strategy { return strategy.NewIDB(-1) }},
		{"portfolio", func() engine.Strategy { s, _ := strategy.New("portfolio", nil, 1); return s }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s()
			var f *schedule.File
			rep := engine.Explore(body, engine.Config{Strategy: s, Schedules: 1000, Points: engine.PointsRacy, Races: true,
				OnExecution: func(n int, r *engine.Result) {
					if r.Bug != nil && f == nil {
						f = engine.NewScheduleFile(r, engine.TestInfo{Package: "p", Name: "T"}, s, n)
					}
				}})
			if rep.First == nil || rep.RacyPointsGrew == 0 {
				t.Fatalf("%d schedules, points grew %d times: want the torn read, found after the points grew", rep.Schedules, rep.RacyPointsGrew)
			}
			// The read and at least one write were points of the bug's execution.
			if !slices.Contains(f.RacyPoints, "u.go:6") || !slices.Contains(f.RacyPoints, "u.go:2") && !slices.Contains(f.RacyPoints, "u.go:3") {
				t.Errorf("the bug's schedule file lists racy points %v", f.RacyPoints)
			}
			// The file replays with its own points.
			cfg := engine.Config{}
			if err := cfg.UseFile(f); err != nil {
				t.Fatal(err)
			}
			if r := engine.Run(body, strategy.NewReplayFile(f), cfg); engine.CheckReproduced(f, r) != nil {
				t.Errorf("replay: %v", engine.CheckReproduced(f, r))
			}
			t.Logf("%s: found after %d schedules; points %v", tc.name, rep.FirstAt, rep.RacyPoints)
		})
	}
	rep := engine.Explore(body, engine.Config{Strategy: strategy.NewRandom(1), Schedules: 1000, Points: engine.PointsRacy})
	if rep.First != nil || rep.RacyPointsGrew != 0 {
		t.Errorf("detector off: bug %v, points grew %d times; want neither", rep.First, rep.RacyPointsGrew)
	}
}
