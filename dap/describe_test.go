package dap

import (
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/control"
)

func TestBugDescription(t *testing.T) {
	deadlock := &control.Bug{Kind: "deadlock", Step: 10, G: 1,
		Message: "all goroutines are blocked:\n\tG0 wg.wait at bank_test.go:28:2\n\tG1 lock at bank.go:14:3"}
	state := func(ended bool) *control.State {
		return &control.State{Ended: ended, Goroutines: []control.Goroutine{
			{ID: 0, Frames: []engine.Frame{{Func: "m.TestX", File: "/m/bank_test.go", Line: 28}}},
			{ID: 1, Frames: []engine.Frame{{Func: "m.Transfer", File: "/m/bank.go", Line: 15}}},
		}}
	}
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
		{"a one-line message", &control.Bug{Kind: "panic", Step: 4, Message: "boom"}, state(false),
			"boom (the schedule reaches this at step 4)"},
		{"a goroutine without frames keeps its position", deadlock, &control.State{Goroutines: []control.Goroutine{{ID: 0}, {ID: 1}}},
			"all goroutines are blocked (the schedule reaches this at step 10):\n\tG0 wg.wait at bank_test.go:28:2\n\tG1 lock at bank.go:14:3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bugDescription(tt.bug, tt.state); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
