package dap

import (
	"strings"
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

// TestThreadName: what tells goroutines apart comes first, where a narrow Call Stack keeps it.
func TestThreadName(t *testing.T) {
	s := &Session{}
	s.dbg.state = &control.State{Next: 1}
	g := &control.Goroutine{ID: 1, Op: "lock", Pos: "bank.go:46:2", Status: "enabled", Created: "bank_test.go:16:3",
		Frames: []engine.Frame{{Func: "example.com/lockorder.transfer"}, {Func: "example.com/lockorder.TestOppositeTransfers.func1"}}}
	want := "G1 lock bank.go:46 [enabled] ← next · "
	if got := s.threadName(g); !strings.HasPrefix(got, want) || !strings.Contains(got, "(bank_test.go:16)") {
		t.Errorf("threadName = %q, want it to start with %q and end with the creation site", got, want)
	}
}
