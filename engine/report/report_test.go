package report

import (
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
)

func TestWriteGoroutinesGroupsAlike(t *testing.T) {
	stack := []engine.Frame{{Func: "m.worker", File: "/m/pool.go", Line: 31}}
	gs := []engine.GoroutineState{{ID: 0, Status: "blocked", Pending: engine.Op{Kind: engine.OpWaitGroupWait, Pos: "pool_test.go:9:2"},
		Stack: []engine.Frame{{Func: "m.__ilTestPool", File: "/m/pool_test.go", Line: 9}}}}
	for i := 1; i <= 50_000; i++ {
		gs = append(gs, engine.GoroutineState{ID: engine.GID(i), Parent: 0, Created: "pool.go:20:3", Status: "blocked",
			Pending: engine.Op{Kind: engine.OpSend, Pos: "pool.go:31:12", Obj: uintptr(i)}, Stack: stack})
	}
	for i := 50_001; i <= 53_308; i++ {
		gs = append(gs, engine.GoroutineState{ID: engine.GID(i), Parent: 0, Created: "pool.go:25:3", Status: "done"})
	}
	gs = append(gs, engine.GoroutineState{ID: 60_000, Parent: 0, Created: "pool.go:40:3", Status: "done",
		Stack: []engine.Frame{{Func: "m.panicker", File: "/m/pool.go", Line: 41}}})
	var b strings.Builder
	WriteGoroutines(&b, gs)
	out := b.String()
	if n := strings.Count(out, "\n"); n > 15 {
		t.Errorf("%d lines for 53,310 goroutines:\n%s", n, out)
	}
	for _, want := range []string{
		"G0 [blocked] wg.wait at pool_test.go:9:2:\n    m.TestPool\n",
		"50000 goroutines G1–G50000 [blocked] send at pool.go:31:12, created by G0 at pool.go:20:3:\n    m.worker\n        /m/pool.go:31\n",
		"G60000 [done], created by G0 at pool.go:40:3:\n    m.panicker\n",
		"(3308 finished goroutine(s) not shown)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteScheduleFromNumbersAsTheWhole(t *testing.T) {
	steps := []schedule.Step{{Kind: schedule.Run, G: 33, Op: "recv", Pos: "a.go:1"}, {Kind: schedule.Run, G: 2, Op: "send", Pos: "a.go:2"}}
	var b strings.Builder
	WriteScheduleFrom(&b, steps, 2658)
	if out := b.String(); !strings.HasPrefix(out, "  2658  G33  recv") || !strings.Contains(out, "  2659  G2   send") {
		t.Errorf("a tail from step 2658:\n%s", out)
	}
}
