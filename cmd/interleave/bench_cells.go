package main

// The exploration phase of interleave bench: one worker process per cell (benchmark ×
// technique), and the bound after bound of IPB and IDB.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/bench"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/test"
	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/findings"
)

// cellEnv is the INTERLEAVE_* environment of one cell's test binary.
func (b *bencher) cellEnv(bm bench.Benchmark, t bench.Technique, strategyArg string, budget time.Duration) []string {
	env := []string{
		"INTERLEAVE_STRATEGY=" + strategyArg,
		"INTERLEAVE_SCHEDULES=" + strconv.Itoa(b.f.limit),
		"INTERLEAVE_SEED=" + strconv.FormatUint(b.f.seed, 10),
		"INTERLEAVE_KEEP_GOING=1",
		"INTERLEAVE_MINIMIZE=0",
		"INTERLEAVE_TIME=" + budget.String(),
		"INTERLEAVE_SCHEDULE_DIR=" + filepath.Join(b.work, "schedules", findings.FileStem(bm.Package), t.Key),
		"INTERLEAVE_REPLAY=",
		"INTERLEAVE_SAVED=0", // a measurement: no saved schedule first
		"INTERLEAVE_DEBUG=",
		// The study's techniques have no fairness rule: only yields force a switch (§3).
		"INTERLEAVE_FAIR_STEPS=-1",
	}
	if b.f.points != "" {
		env = append(env, "INTERLEAVE_POINTS="+b.f.points)
	}
	if b.f.maxSteps != 0 {
		env = append(env, "INTERLEAVE_MAX_STEPS="+strconv.Itoa(b.f.maxSteps))
	}
	return env
}

// exploreOnce runs the cell's test binary once with the given strategy and time budget. The
// binary stops itself at the budget (INTERLEAVE_TIME); it is interrupted if it is still running
// a minute later. When it ends without a result, the last progress event says how far it got.
func (b *bencher) exploreOnce(ctx context.Context, bm bench.Benchmark, t bench.Technique, bl *built, strategyArg string, budget time.Duration) (*explore.Event, *explore.Event, error) {
	cctx, cancel := context.WithTimeout(ctx, budget+time.Minute)
	defer cancel()
	var last *explore.Event
	res, _, err := test.ExecTest(cctx, bl.pkg, bl.test, b.cellEnv(bm, t, strategyArg, budget), func(e *explore.Event) { last = e })
	if err != nil && cctx.Err() != nil && ctx.Err() == nil {
		err = fmt.Errorf("killed %v after its time budget: %w", time.Minute, err)
	}
	return res, last, err
}

// runCell runs one technique on one benchmark.
func (b *bencher) runCell(ctx context.Context, bm bench.Benchmark, t bench.Technique, bl *built) bench.Cell {
	c := bench.Cell{Benchmark: bm.Package, Technique: t.Key, Strategy: t.StrategyArg()}
	if bl.pkg == nil || bl.test == "" {
		c.Error = "build: " + bl.buildErr
		c.Stopped = "error"
		return c
	}
	if ctx.Err() != nil {
		c.Stopped, c.Error = "canceled", "not run: interrupted"
		return c
	}
	if t.Kind == bench.Iterative {
		return b.runIterative(ctx, bm, t, bl, c)
	}
	res, last, err := b.exploreOnce(ctx, bm, t, bl, c.Strategy, b.f.cellTime)
	fillCell(&c, res, last, err, ctx)
	return c
}

// fillCell copies a result event (or, without one, the last progress and the error) into c.
func fillCell(c *bench.Cell, res, last *explore.Event, err error, ctx context.Context) {
	if err != nil || res == nil {
		if last != nil {
			c.Schedules, c.Seconds = last.Schedules, last.Elapsed
		}
		c.Stopped = "error"
		if ctx.Err() != nil {
			c.Stopped = "canceled"
		}
		if err == nil {
			err = errors.New("no result")
		}
		c.Error = err.Error()
		return
	}
	c.Schedules, c.Buggy, c.FirstBug = res.Schedules, res.Buggy, res.FirstBug
	c.MaxGoroutines, c.MaxSteps, c.Seconds = res.MaxGoroutines, res.MaxSteps, res.Elapsed
	c.Stopped, c.Exhausted = res.Stopped, res.Exhausted
	if res.Bug != nil {
		c.BugKind, c.BugMsg = res.Bug.Kind, firstLine(res.Bug.Message)
	}
	if res.Error != "" {
		c.Error = res.Error
	}
	if n := len(res.Limitations); res.Stopped == "limitation" && c.Error == "" && n > 0 {
		// An execution blocked outside the engine ended the cell's exploration, as an error
		// ended it before the result said it apart (issue 46): the table shows why.
		c.Stopped, c.Error = "error", res.Limitations[n-1].Message
	}
}

// runIterative runs IPB or IDB as the study did (§5, "Iterative Preemption Bounding (IPB)
// Phase"): every schedule with bound 0, then bound 1, and so on; when a bug is found, the rest
// of its bound is still explored, and the search stops there. The strategy explores the bounds
// in this order without repeating a schedule; to learn where one bound ends, each bound c is a
// run of its own with max=c (which explores bounds 0..c as the unbounded search would, then
// stops), and the cell reports the last run: the bound reached, the schedules to the first bug,
// the schedules up to and including that bound, those of exactly that bound ("new", Table III)
// and the buggy ones. The repeated lower bounds cost time, not schedules of the reported count.
// Any buggy schedule ends the search at its bound, one that ran into the step bound too (the
// tables show that one apart).
func (b *bencher) runIterative(ctx context.Context, bm bench.Benchmark, t bench.Technique, bl *built, c bench.Cell) bench.Cell {
	deadline := time.Now().Add(b.f.cellTime)
	before := 0 // schedules with a smaller bound
	for bound := 0; ; bound++ {
		left := time.Until(deadline)
		if left <= 0 {
			c.Stopped = "time"
			return c
		}
		params := map[string]string{"max": strconv.Itoa(bound)}
		for k, v := range t.Params {
			params[k] = v
		}
		arg := bench.Technique{Strategy: t.Strategy, Params: params}.StrategyArg()
		res, last, err := b.exploreOnce(ctx, bm, t, bl, arg, left)
		maxG, maxS := c.MaxGoroutines, c.MaxSteps
		fillCell(&c, res, last, err, ctx)
		c.MaxGoroutines, c.MaxSteps = max(maxG, c.MaxGoroutines), max(maxS, c.MaxSteps)
		c.Bound, c.NewSchedules = bound, c.Schedules-before
		if c.Error != "" || c.FirstBug > 0 || c.Stopped != "exhausted" || strings.Contains(c.Exhausted, "whole schedule space") {
			return c
		}
		before = c.Schedules
	}
}
