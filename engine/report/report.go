// Package report describes explorations for a person: the one-line summary of a run without
// a bug, the full description of a bug (kind, message, position, every goroutine's stack, the
// test's log, the schedule file and how to replay it), and a schedule as a step table. The
// test process, the interleave command and the debug adapter print the same text.
package report

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// Summary is a one-line description of an exploration without a bug: how many schedules and
// interleavings, and what that guarantees.
func Summary(rep *engine.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "no bug in %d schedules (%d distinct interleavings, %d racy pairs, %s, %.0f schedules/s)",
		rep.Schedules, rep.Interleavings, len(rep.Races), rep.Strategy, rep.SchedulesPerSecond())
	if rep.Exhausted != "" {
		fmt.Fprintf(&b, ": %s", rep.Exhausted)
	}
	if s := Stopped(rep.Stopped, 0); s != "" {
		fmt.Fprintf(&b, "; %s", s)
	}
	return b.String()
}

// Stopped says why an exploration stopped before its schedule space's end, for a person:
// "stopped: time budget (5s)" (with the budget, when known), "stopped: schedule budget",
// "stopped: no new operation pair or data race", "stopped: canceled"; "" for the other
// reasons, which the
// result says otherwise (a bug, the space exhausted, an abandoned execution).
func Stopped(stopped string, timeBudget time.Duration) string {
	switch stopped {
	case "time":
		if timeBudget > 0 {
			return fmt.Sprintf("stopped: time budget (%s)", timeBudget.Round(100*time.Millisecond))
		}
		return "stopped: time budget"
	case "schedules":
		return "stopped: schedule budget"
	case "plateau":
		return "stopped: no new operation pair or data race"
	case "canceled":
		return "stopped: canceled"
	}
	return ""
}

// FormatFailure describes the first bug of rep for a person: what, where, after how many
// schedules, every goroutine's stack, the test's log, and the schedule file that replays it
// (when schedulePath is not empty, with the command that replays test).
func FormatFailure(rep *engine.Report, schedulePath, test string) string {
	var b strings.Builder
	r := rep.First
	bug := r.Bug
	fmt.Fprintf(&b, "interleave: %s found by %s after %d schedule(s)", bug.Kind, rep.Strategy, rep.FirstAt)
	if rep.Buggy > 1 {
		fmt.Fprintf(&b, " (%d buggy of %d)", rep.Buggy, rep.Schedules)
	}
	fmt.Fprintf(&b, "\n%s\n", indent(bug.Message, "    "))
	fmt.Fprintf(&b, "at %s, step %d of %d, in %v; the schedule has %d preemption(s)\n", bug.Pos, bug.Step, r.Steps, bug.G, r.Preemptions)
	if len(bug.Logs) > 0 {
		fmt.Fprintf(&b, "test log:\n")
		for _, l := range bug.Logs {
			fmt.Fprintf(&b, "    %s\n", l)
		}
	}
	WriteGoroutines(&b, bug.Goroutines)
	if schedulePath != "" {
		fmt.Fprintf(&b, "schedule: %s\n", schedulePath)
		switch {
		case os.Getenv("INTERLEAVE_CLI") != "":
			fmt.Fprintf(&b, "replay:   interleave replay %s\n", schedulePath)
		case test != "":
			fmt.Fprintf(&b, "replay:   INTERLEAVE_REPLAY=%s go test -run '^%s$'\n", schedulePath, strings.SplitN(test, "/", 2)[0])
		}
	}
	return b.String()
}

// WriteGoroutines writes each goroutine's state and stack. Goroutines with the same state,
// pending operation, creation site and stack are one entry with their count and ids (as
// panicparse groups a crash dump), and finished goroutines are counted, not listed.
func WriteGoroutines(w io.Writer, gs []engine.GoroutineState) {
	type group struct {
		first engine.GoroutineState
		ids   []engine.GID
	}
	var groups []*group
	index := map[string]*group{}
	done := 0
	for _, g := range gs {
		if g.Status == "done" && len(g.Stack) == 0 {
			// Finished: nothing to show (a goroutine that panicked keeps its stack).
			done++
			continue
		}
		var key strings.Builder
		fmt.Fprintf(&key, "%s|%s|%v|%s", g.Status, g.Pending, g.Parent, g.Created)
		for _, f := range g.Stack {
			fmt.Fprintf(&key, "|%s:%s:%d", f.Func, f.File, f.Line)
		}
		if gr, ok := index[key.String()]; ok && g.ID != 0 {
			gr.ids = append(gr.ids, g.ID)
			continue
		}
		gr := &group{first: g, ids: []engine.GID{g.ID}}
		groups = append(groups, gr)
		if g.ID != 0 {
			index[key.String()] = gr
		}
	}
	for _, gr := range groups {
		g := gr.first
		if len(gr.ids) > 1 {
			fmt.Fprintf(w, "\n%d goroutines %s [%s]", len(gr.ids), engine.GIDRanges(gr.ids), g.Status)
		} else {
			fmt.Fprintf(w, "\n%v [%s]", g.ID, g.Status)
		}
		if g.Pending.Kind != engine.OpNone && g.Status != "done" {
			fmt.Fprintf(w, " %s", g.Pending)
		}
		if g.Created != "" {
			fmt.Fprintf(w, ", created by %v at %s", g.Parent, g.Created)
		}
		fmt.Fprintln(w, ":")
		for _, f := range g.Stack {
			// The instrumenter renames TestXxx to __ilTestXxx (and runs it from a TestXxx of
			// its own): show the name the developer wrote.
			fn := strings.Replace(f.Func, ".__ilTest", ".Test", 1)
			fmt.Fprintf(w, "    %s\n        %s:%d\n", fn, f.File, f.Line)
		}
	}
	if done > 0 {
		fmt.Fprintf(w, "\n(%d finished goroutine(s) not shown)\n", done)
	}
	fmt.Fprintln(w)
}

// WriteSchedule writes a schedule as a table: step, goroutine, operation, position; data
// choices are shown under the step that made them.
func WriteSchedule(w io.Writer, steps []schedule.Step) { WriteScheduleFrom(w, steps, 1) }

// WriteScheduleFrom is WriteSchedule for the tail of a schedule whose first step is step
// number first: steps are numbered as in the whole schedule.
func WriteScheduleFrom(w io.Writer, steps []schedule.Step, first int) {
	n := first - 1
	for _, s := range steps {
		switch s.Kind {
		case schedule.Run:
			n++
			fmt.Fprintf(w, "%6d  G%-3d %-14s %s\n", n, s.G, s.Op, s.Pos)
		case schedule.Choice:
			fmt.Fprintf(w, "        %-4s choice %d of %d (%s at %s)\n", "", s.Value, s.N, s.Op, s.Pos)
		}
	}
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
