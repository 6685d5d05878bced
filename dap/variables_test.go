package dap

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/control"
)

// TestUserTypeName: the per-schedule test handle is shown as the type the test declares.
func TestUserTypeName(t *testing.T) {
	for in, want := range map[string]string{
		"*github.com/interleave-dev/interleave/engine.T":         "*testing.T",
		"github.com/interleave-dev/interleave/engine/harness.TB": "testing.TB",
		"[]*github.com/interleave-dev/interleave/engine.T":       "[]*testing.T",
		"*example.com/bank.Account":                              "*example.com/bank.Account",
		"github.com/interleave-dev/interleave/engine.Timer":      "github.com/interleave-dev/interleave/engine.Timer",
	} {
		if got := userTypeName(in); got != want {
			t.Errorf("userTypeName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestThreadName: what tells goroutines apart, and only that, so that a Call Stack of ordinary
// width shows all of it (the function and creation site made names of 80 characters, cut).
func TestThreadName(t *testing.T) {
	s := &Session{}
	s.dbg.state = &control.State{Next: 1}
	for _, tc := range []struct {
		g    control.Goroutine
		want string
	}{
		{control.Goroutine{ID: 1, Op: "lock", Pos: "bank.go:46:2", Status: "enabled", Created: "bank_test.go:16:3",
			Frames: []engine.Frame{{Func: "example.com/lockorder.transfer"}, {Func: "example.com/lockorder.TestOppositeTransfers.func1"}}},
			"G1 lock bank.go:46 [enabled] ← next"},
		{control.Goroutine{ID: 2, Op: "send", Pos: "/home/u/m/worker.go:14:5", Status: "blocked", Created: "worker_test.go:9:2"}, "G2 send worker.go:14 [blocked]"},
		{control.Goroutine{ID: 3, Status: "done"}, "G3 [done]"},
	} {
		if got := s.threadName(&tc.g); got != tc.want {
			t.Errorf("threadName(G%d) = %q, want %q", tc.g.ID, got, tc.want)
		}
	}
}

// TestLaunchDefaultStrategy: a launch that names no strategy explores with interleave test's
// default, the portfolio (the debugger used PCT: 29 schedules to a deadlock the command found
// in 2); parameters without a strategy are PCT's.
func TestLaunchDefaultStrategy(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		launch string
		want   string
	}{
		{`{"mode": "explore", "program": %q}`, "portfolio"},
		{`{"mode": "explore", "program": %q, "d": 2}`, "pct"},
		{`{"mode": "explore", "program": %q, "strategy": "random"}`, "random"},
	} {
		raw := fmt.Sprintf(tc.launch, dir)
		a, err := parseLaunchArgs(json.RawMessage(raw), false)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if a.Strategy != tc.want {
			t.Errorf("%s: strategy %q, want %q", raw, a.Strategy, tc.want)
		}
	}
}
