package dap

import (
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/control"
)

func TestBugDescription(t *testing.T) {
	deadlock := &control.Bug{Kind: "deadlock", Step: 10, G: 1,
		Message: "all goroutines are blocked:\n\tG0 wg.wait at bank_test.go:28:2\n\tG1 lock at bank.go:14:3"}
	// G1 waits on the lock of the message, at a line of a statement that its frame gives as
	// the next (a call spanning lines): the Call Stack highlights line 15.
	state := func(ended bool) *control.State {
		return &control.State{Ended: ended, Step: 9, Goroutines: []control.Goroutine{
			{ID: 0, Op: "wg.wait", Pos: "bank_test.go:28:2", Frames: []engine.Frame{{Func: "m.TestX", File: "/m/bank_test.go", Line: 28}}},
			{ID: 1, Op: "lock", Pos: "bank.go:14:3", Frames: []engine.Frame{{Func: "m.Transfer", File: "/m/bank.go", Line: 15}}},
		}}
	}
	// G1 runs the last step first, from its lock at bank.go:13, the Call Stack's line.
	elsewhere := &control.State{Step: 9, Next: 1, Goroutines: []control.Goroutine{
		{ID: 0, Op: "wg.wait", Pos: "bank_test.go:28:2", Frames: []engine.Frame{{Func: "m.TestX", File: "/m/bank_test.go", Line: 28}}},
		{ID: 1, Op: "lock", Pos: "bank.go:13:2", Frames: []engine.Frame{{Func: "m.Transfer", File: "/m/bank.go", Line: 13}}},
	}}
	tests := []struct {
		name  string
		bug   *control.Bug
		state *control.State
		want  string
	}{
		{"before the schedule reaches it", deadlock, state(false),
			"all goroutines are blocked (the schedule reaches this at step 10):\n\tG0 wg.wait at bank_test.go:28\n\tG1 lock at bank.go:15"},
		{"once reached", deadlock, state(true),
			"all goroutines are blocked:\n\tG0 wg.wait at bank_test.go:28\n\tG1 lock at bank.go:15"},
		{"the goroutine that runs the last step is elsewhere", deadlock, elsewhere,
			"all goroutines are blocked (the schedule reaches this at step 10):\n\tG0 wg.wait at bank_test.go:28\n\tG1 lock at bank.go:14\n\tG1 runs step 10 first: lock at bank.go:13"},
		{"a one-line message", &control.Bug{Kind: "panic", Step: 4, Message: "boom"}, &control.State{Step: 3, Goroutines: []control.Goroutine{{ID: 0}}},
			"boom (the schedule reaches this at step 4)"},
		{"a goroutine without frames is named at the message's line", deadlock, &control.State{Goroutines: []control.Goroutine{{ID: 0}, {ID: 1}}},
			"all goroutines are blocked (the schedule reaches this at step 10):\n\tG0 wg.wait at bank_test.go:28\n\tG1 lock at bank.go:14"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bugDescription(tt.bug, tt.state); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
