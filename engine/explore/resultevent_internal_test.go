package explore

import (
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// A search's claim of exhaustion says the program was seen to be nondeterministic only when
// a strategy gave up on it (Report.Recovered), not for every notice: a bug reported as a
// notice (an example's output that differs the same way in every schedule, a failure after
// the clock ran ahead) says nothing of the program's determinism.
func TestResultEventQualifiesExhaustedByRecoveredOnly(t *testing.T) {
	const claim = "all 4 schedules explored " + engine.WholeScheduleSpace
	for _, tc := range []struct {
		name      string
		recovered int
		nondet    bool
	}{
		{"a bug's notice", 0, false},
		{"a strategy's notice", 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := &engine.Report{Exhausted: claim, Notices: []string{"a notice"}, Recovered: tc.recovered}
			e := resultEvent("TestX", schedule.Test{}, rep)
			if got := strings.Contains(e.Exhausted, "seen to be nondeterministic"); got != tc.nondet {
				t.Fatalf("Exhausted %q: nondeterministic %v, want %v", e.Exhausted, got, tc.nondet)
			}
			if e.Notice != "a notice" {
				t.Fatalf("Notice %q, want the report's", e.Notice)
			}
		})
	}
}
