package explore

import (
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine"
)

// TestUnconfirmedSaysWhatTheReplayCameTo: a bug its replay in a fresh process did not reproduce
// is a notice whose explanation follows the replay's outcome — earlier executions' leftovers
// when the replay passed, a path the engine does not control when it diverged.
func TestUnconfirmedSaysWhatTheReplayCameTo(t *testing.T) {
	bug := &engine.Bug{Kind: engine.Leak, Message: "the test returned, but 2 goroutine(s) stay blocked forever:\n\tG1 lock"}
	for _, tt := range []struct {
		outcome, want, not string
	}{
		{"the replay passed", "it depends on what earlier executions of the test left in the process", "took another path"},
		{"replay diverged at step 32: lock at stacktraces.go:104, but unlock at deadlock.go:429", "the program took another path in the fresh process", "it depends on"},
	} {
		got := unconfirmed(bug, 7, tt.outcome, "/m/.interleave/schedules/x.json")
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) || !strings.Contains(got, "("+tt.outcome+")") || !strings.HasPrefix(got, "a leak (the test returned, but 2 goroutine(s) stay blocked forever:) was seen in schedule 7") {
			t.Errorf("outcome %q: %s", tt.outcome, got)
		}
	}
}
