package strategy_test

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// randBug fails when the first value drawn by rand.Intn(4) is not want: a bug hidden behind
// data, reached only when executions draw different values.
func randBug(want int) func(*engine.T) {
	return func(t *engine.T) {
		var wg sync.WaitGroup
		engine.WGAdd(&wg, 1, "d.go:1")
		got := -1
		engine.Go(func() {
			defer engine.WGDone(&wg, "d.go:2")
			got = engine.RandIntn(4, "d.go:3")
		}, "d.go:4")
		engine.WGWait(&wg, "d.go:5")
		if got != want {
			t.Errorf("rand.Intn(4) = %d", got)
		}
	}
}

// fixedDraw is the value rand.Intn(4) draws from the fixed seed (a strategy without data
// seeds, such as DFS).
func fixedDraw(t *testing.T) int {
	got := -1
	dfs, err := strategy.New("dfs", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	engine.Run(func(*engine.T) { got = engine.RandIntn(4, "d.go:0") }, dfs, engine.Config{})
	return got
}

// Randomized strategies give each execution its own math/rand values, recorded in the schedule
// file and replayed; systematic ones hold them fixed and say so when they claim to have
// covered everything.
func TestDataNondeterminismExplored(t *testing.T) {
	body := randBug(fixedDraw(t))
	for _, name := range []string{"random", "pct", "pos", "portfolio"} {
		t.Run(name, func(t *testing.T) {
			s, err := strategy.New(name, nil, 1)
			if err != nil {
				t.Fatal(err)
			}
			var f *schedule.File
			rep := engine.Explore(body, engine.Config{Strategy: s, Schedules: 100, OnExecution: func(n int, r *engine.Result) {
				if r.Bug != nil && f == nil {
					f = engine.NewScheduleFile(r, rpInfo, s, n)
				}
			}})
			if rep.First == nil || f == nil {
				t.Fatalf("the bug behind rand.Intn was not found in %d schedules", rep.Schedules)
			}
			if f.DataSeed == 0 {
				t.Fatalf("the schedule file records no data seed")
			}
			path := filepath.Join(t.TempDir(), "bug.json")
			if err := f.Save(path); err != nil {
				t.Fatal(err)
			}
			loaded, err := schedule.Load(path)
			if err != nil || loaded.DataSeed != f.DataSeed {
				t.Fatalf("loaded data seed %d (%v), saved %d", loaded.DataSeed, err, f.DataSeed)
			}
			r := engine.Run(body, strategy.NewReplayFile(loaded), engine.Config{})
			if err := engine.CheckReproduced(loaded, r); err != nil {
				t.Fatalf("replay: %v", err)
			}
		})
	}
	t.Run("dfs", func(t *testing.T) {
		s, err := strategy.New("dfs", nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		rep := engine.Explore(body, engine.Config{Strategy: s, Schedules: 10_000})
		if rep.First != nil || rep.Stopped != "exhausted" || !strings.Contains(rep.Exhausted, "with math/rand's values held fixed") {
			t.Fatalf("dfs: stopped %s, %q, bug %v: want the space exhausted, saying the values were held fixed", rep.Stopped, rep.Exhausted, rep.First)
		}
	})
}

// A portfolio whose systematic member exhausts a test's few interleavings goes on when the
// test draws math/rand values: the member held them fixed, and a bug behind a value one
// draw in 1,024 reaches is found by the randomized members. (Before, the portfolio stopped after
// a handful of executions and printed the exhaustive claim.)
func TestPortfolioGoesOnWhenDataVaries(t *testing.T) {
	fixed := -1
	dfs, err := strategy.New("dfs", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	engine.Run(func(*engine.T) { fixed = engine.RandIntn(1024, "d.go:0") }, dfs, engine.Config{})
	body := func(t *engine.T) {
		var wg sync.WaitGroup
		engine.WGAdd(&wg, 1, "d.go:1")
		got := -1
		engine.Go(func() {
			defer engine.WGDone(&wg, "d.go:2")
			got = engine.RandIntn(1024, "d.go:3")
		}, "d.go:4")
		engine.WGWait(&wg, "d.go:5")
		if got == (fixed+1)%1024 {
			t.Errorf("rand.Intn(1024) = %d", got)
		}
	}
	s, err := strategy.New("portfolio", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	rep := engine.Explore(body, engine.Config{Strategy: s, Schedules: 10000})
	if rep.First == nil {
		t.Fatalf("not found in %d schedules (stopped: %s, %q)", rep.Schedules, rep.Stopped, rep.Exhausted)
	}
	t.Logf("found after %d schedules", rep.Schedules)

	// Without math/rand, the exhausted space still ends the portfolio.
	s, _ = strategy.New("portfolio", nil, 1)
	rep = engine.Explore(func(t *engine.T) {
		var wg sync.WaitGroup
		engine.WGAdd(&wg, 1, "d.go:1")
		engine.Go(func() { engine.WGDone(&wg, "d.go:2") }, "d.go:4")
		engine.WGWait(&wg, "d.go:5")
	}, engine.Config{Strategy: s, Schedules: 5000})
	if rep.Stopped != "exhausted" || rep.Schedules > 100 {
		t.Fatalf("without data: stopped %q after %d schedules, want exhausted early", rep.Stopped, rep.Schedules)
	}
}
