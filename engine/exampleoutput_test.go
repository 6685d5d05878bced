package engine_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// outputs is the body of an example whose output in its n-th schedule (from 1) is outs[n-1]
// (the last one from then on); "want" is the output comment's. It is the harness's check
// (harness.RunExample) without the printing: the rule under test is the exploration's.
func outputs(outs ...string) func(*engine.T) {
	n := 0
	return func(t *engine.T) {
		out := outs[min(n, len(outs)-1)]
		n++
		if out != "want" {
			t.OutputDiffers("ex_test.go:1", "got:\n"+out+"\nwant:\nwant", out)
		}
	}
}

// TestExampleOutputDependsOnSchedule: an example's output that differs from its comment is
// a bug only when the difference depends on the schedule — another schedule gave the expected
// output, or a different one; the same difference in every schedule (an example that prints
// its call stack, which runs through the engine here) is a notice, and the example passes.
func TestExampleOutputDependsOnSchedule(t *testing.T) {
	for _, tc := range []struct {
		name      string
		outs      []string
		keepGoing bool
		firstAt   int // 0: no bug, a notice
		buggy     int
		schedules int
	}{
		{name: "the same in every schedule", outs: []string{"stack"}, schedules: 20},
		{name: "expected once first", outs: []string{"want", "stack"}, firstAt: 2, buggy: 1, schedules: 2},
		{name: "expected after", outs: []string{"stack", "stack", "want"}, firstAt: 1, buggy: 2, schedules: 3},
		{name: "differs differently", outs: []string{"stack", "other"}, firstAt: 1, buggy: 2, schedules: 2},
		{name: "keep going", outs: []string{"stack", "want", "stack"}, keepGoing: true, firstAt: 1, buggy: 11, schedules: 12},
		{name: "one schedule", outs: []string{"stack"}, schedules: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			budget := 20
			if tc.keepGoing {
				budget = 12
			}
			if tc.name == "one schedule" {
				budget = 1
			}
			rep := engine.Explore(outputs(tc.outs...), engine.Config{Strategy: strategy.NewRandom(1), Schedules: budget, KeepGoing: tc.keepGoing})
			if rep.Schedules != tc.schedules || rep.Buggy != tc.buggy || rep.FirstAt != tc.firstAt {
				t.Fatalf("schedules %d, buggy %d, first bug at %d (%v): want %d, %d, %d", rep.Schedules, rep.Buggy, rep.FirstAt, bugOf(rep), tc.schedules, tc.buggy, tc.firstAt)
			}
			notice := strings.Join(rep.Notices, "\n")
			if tc.firstAt > 0 {
				if rep.First == nil || !rep.First.Bug.OutputDiffers || rep.First.Bug.Pos != "ex_test.go:1" {
					t.Fatalf("first bug %+v: want the example's difference at ex_test.go:1", bugOf(rep))
				}
				if notice != "" {
					t.Fatalf("notices %q: want none (the difference is a bug)", rep.Notices)
				}
				return
			}
			if rep.First != nil {
				t.Fatalf("bug %v: want none, the difference only a notice", bugOf(rep))
			}
			if !strings.Contains(notice, "the same way in every schedule") || !strings.Contains(notice, "ex_test.go:1") || !strings.Contains(notice, "does not depend on the schedule") {
				t.Fatalf("notices %q: want one saying the difference does not depend on the schedule", rep.Notices)
			}
		})
	}
}

// TestExampleOutputRaceIsABug: an example whose two goroutines print in either order
// (an output race) is a bug under the rule, and its saved schedule replays the same wrong
// output.
func TestExampleOutputRaceIsABug(t *testing.T) {
	body := func(t *engine.T) {
		var mu sync.Mutex
		var out strings.Builder
		done := engine.MakeChan[int](0, "race_test.go:1")
		for _, s := range []string{"a", "b"} {
			engine.Go(func() {
				engine.Lock(&mu, "race_test.go:2")
				out.WriteString(s)
				engine.Unlock(&mu, "race_test.go:3")
				engine.Send(done, 1, "race_test.go:4")
			}, "race_test.go:5")
		}
		engine.Recv(done, "race_test.go:6")
		engine.Recv(done, "race_test.go:7")
		if got := out.String(); got != "ab" {
			t.OutputDiffers("race_test.go:8", "got:\n"+got+"\nwant:\nab", got)
		}
	}
	rep := engine.Explore(body, engine.Config{Strategy: strategy.NewRandom(1), Schedules: 100})
	if rep.First == nil || !rep.First.Bug.OutputDiffers {
		t.Fatalf("no bug in %d schedules (notices %q): want the output race found", rep.Schedules, rep.Notices)
	}
	res := engine.Run(body, strategy.NewReplay(rep.First.Schedule), engine.Config{})
	if res.Bug == nil || !res.Bug.OutputDiffers || res.Bug.Output != "ba" {
		t.Fatalf("replay of schedule %d: bug %v, want the output \"ba\" again", rep.FirstAt, res.Bug)
	}
}
