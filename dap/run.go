package dap

// What a session runs once configured: an exploration until its first bug (with progress and
// its run summary in the results store), or the replay of a schedule.

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/go-dap"
	"github.com/interleave-dev/interleave/engine/control"
	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/runs"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// explore explores the test with progress events until the first bug, and stops there.
func (s *Session) explore(t *target) {
	a := t.args
	id := "explore-" + strconv.Itoa(int(time.Now().UnixNano()%1e9))
	title := fmt.Sprintf("Exploring %s with %s", a.Test, a.Strategy)
	if s.progress {
		s.sendEvent(&dap.ProgressStartEvent{Event: s.event("progressStart"), Body: dap.ProgressStartEventBody{ProgressId: id, Title: title, Cancellable: true, Message: "starting", Percentage: 0}})
	} else {
		s.output("console", title+" ...\n")
	}
	var mu sync.Mutex
	t.ctl.pmu.Lock()
	t.ctl.progress = func(p *control.Progress) {
		mu.Lock()
		defer mu.Unlock()
		rate := 0.0
		if p.Elapsed > 0 {
			rate = float64(p.Schedules) / p.Elapsed
		}
		pct := 0.0
		if a.Schedules > 0 {
			pct = 100 * float64(p.Schedules) / float64(a.Schedules)
		}
		msg := fmt.Sprintf("%d schedules, %.0f schedules/s, %d distinct interleavings", p.Schedules, rate, p.Interleavings)
		if !s.progress {
			s.output("console", msg+"\n")
			return
		}
		s.sendEvent(&dap.ProgressUpdateEvent{Event: s.event("progressUpdate"), Body: dap.ProgressUpdateEventBody{ProgressId: id, Message: msg, Percentage: int(pct)}})
	}
	t.ctl.pmu.Unlock()
	s.exploring.Store(true)
	r, err := t.call(control.Command{Cmd: "explore", Strategy: a.Strategy, Params: a.params, Seed: a.Seed, Schedules: a.Schedules, Time: a.time,
		Points: a.Points, Races: a.Races, MaxSteps: a.maxSteps, StrictLeaks: a.strictLeaks, G: -1})
	s.exploring.Store(false)
	if err != nil {
		s.progressEnd(id, "failed")
		s.stopTarget("exploration failed: " + err.Error())
		return
	}
	x := r.Explored
	rate := 0.0
	if x.Elapsed > 0 {
		rate = float64(x.Schedules) / x.Elapsed
	}
	summary := fmt.Sprintf("%d schedules (%d distinct interleavings, %s, %.0f schedules/s)", x.Schedules, x.Interleavings, a.Strategy, rate)
	// The final count, also when the exploration was too short for a progress reply.
	t.ctl.pmu.Lock()
	progress := t.ctl.progress
	t.ctl.progress = nil
	t.ctl.pmu.Unlock()
	progress(&x.Progress)
	s.progressEnd(id, summary)
	for _, r := range x.Races {
		s.output("console", raceLine(r))
	}
	if x.Notice != "" {
		s.output("console", "interleave: "+x.Notice+"\n")
	}
	if err := t.saveRun(x); err != nil {
		s.output("console", fmt.Sprintf("interleave: the summary of this exploration was not written: %v\n", err))
	}
	if x.Error != "" && x.Bug == nil {
		s.stopTarget("exploration stopped: " + x.Error)
		return
	}
	if x.Bug == nil {
		msg := "no bug in " + summary
		if x.Stopped == "canceled" {
			msg = "exploration canceled: no bug in " + summary
		}
		if x.Exhausted != "" {
			msg += ": " + x.Exhausted
		}
		s.stopTarget(msg)
		return
	}
	f := x.File
	if f == nil || f.Bug == nil {
		s.stopTarget("exploration found a bug but returned no schedule: " + x.Error)
		return
	}
	s.output("console", fmt.Sprintf("%s found after %s\n%s\nschedule: %s\n", x.Bug.Kind, summary, x.Bug.Message, f.Path))
	t.file = f
	s.dbg.origin = f
	c := t.runCommand(f)
	c.Stop = max(f.Bug.Step-1, 0)
	s.run(t, c, "exception")
}

// saveRun writes the exploration's run summary to the results store, as interleave test
// writes its runs' (the findings document and the bug's schedule are the test process's).
func (t *target) saveRun(x *control.Explored) error {
	a := t.args
	dir, err := runs.Dir(t.moduleDir)
	if err != nil {
		return err
	}
	e := &explore.Event{Event: "result", Test: t.test.Name, Package: t.test.Package, Strategy: x.Strategy, Elapsed: x.Elapsed,
		Schedules: x.Schedules, Interleavings: x.Interleavings, Points: a.Points, Races: len(x.Races), Findings: x.Findings,
		Stopped: x.Stopped, Exhausted: x.Exhausted, Error: x.Error, Notice: x.Notice}
	if e.Strategy == "" {
		e.Strategy = a.Strategy
	}
	if x.Bug != nil {
		pos := x.Bug.Pos
		if rel, err := filepath.Rel(t.moduleDir, pos); err == nil && filepath.IsAbs(pos) && !strings.HasPrefix(rel, "..") {
			pos = filepath.ToSlash(rel) // a failure's position, from runtime.Caller
		}
		e.Buggy = 1
		e.Bug = &explore.EventBug{Kind: x.Bug.Kind, Message: x.Bug.Message, Position: pos, Step: x.Bug.Step}
		if f := x.File; f != nil {
			e.Bug.Schedule, e.Bug.Preemptions = f.Path, f.Result.Preemptions
		}
		e.FirstBug = x.Schedules
	}
	o := runs.Outcome{Package: t.test.Package, Test: t.test.Name, Result: e}
	if x.Error != "" && x.Bug == nil {
		o.Err = x.Error
	}
	doc := &runs.Summary{Version: 1, Time: time.Now().UTC(), Origin: RunOrigin, Packages: []string{t.test.Package},
		Run: "^" + regexp.QuoteMeta(t.test.Name) + "$", Strategy: a.Strategy, Params: a.params, Schedules: a.Schedules, Seed: a.Seed,
		Tests: []runs.Outcome{o}}
	_, err = doc.Save(dir)
	return err
}

// RunOrigin is the origin of the run summaries of explorations the debug adapter runs.
const RunOrigin = "interleave dap"

func (s *Session) progressEnd(id, msg string) {
	if s.progress {
		s.sendEvent(&dap.ProgressEndEvent{Event: s.event("progressEnd"), Body: dap.ProgressEndEventBody{ProgressId: id, Message: msg}})
	}
}

// startReplay starts replaying f, paused at its first scheduling point or running to the
// first breakpoint or its bug.
func (s *Session) startReplay(t *target, f *schedule.File) {
	s.dbg.origin = f
	c := t.runCommand(f)
	c.Stop = -1
	reason := ""
	if t.args.StopOnEntry {
		c.Stop, reason = 0, "entry"
	}
	s.run(t, c, reason)
}

// runCommand is the command that runs the schedule f from its start, as f was recorded (the
// same scheduling points; the race detector failing at the first race when f's bug is one;
// the step bound of a livelock or a leak).
func (t *target) runCommand(f *schedule.File) control.Command {
	c := control.Command{Cmd: "run", Steps: f.Steps, DataSeed: f.DataSeed, ExceptionAt: -1, G: -1, Points: f.Points, RacyPoints: f.RacyPoints, Races: "report",
		Then: t.args.Then, Seed: t.args.Seed, StrictLeaks: t.args.strictLeaks}
	if f.Bug != nil {
		c.ExceptionAt = f.Bug.Step - 1
		switch f.Bug.Kind {
		case "race":
			c.Races = "fail"
		case "livelock", "leak":
			// The bug is the step bound, or may be (goroutines still running after the test
			// at the bound): the same bound reproduces it (engine.ReplayMaxSteps).
			c.MaxSteps = max(f.Bug.Step, 1)
		}
	}
	return c
}
