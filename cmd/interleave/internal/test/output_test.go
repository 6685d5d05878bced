package test

import "testing"

// TestBugAfter: the FAIL line counts schedules as the bug's report above it does (the first
// bug's number), and adds how many ran in all when the workers ran more; it said "after 4
// schedule(s)" under a report that said "after 2 schedule(s)".
func TestBugAfter(t *testing.T) {
	for _, tc := range []struct {
		firstBug, schedules int
		want                string
	}{
		{2, 4, "deadlock bug after 2 schedule(s), 4 run in all"},
		{29, 29, "deadlock bug after 29 schedule(s)"},
		{0, 3, "deadlock bug after 3 schedule(s)"},
		{1500, 12000, "deadlock bug after 1,500 schedule(s), 12,000 run in all"},
	} {
		if got := bugAfter("deadlock", tc.firstBug, tc.schedules); got != tc.want {
			t.Errorf("bugAfter(%d, %d) = %q, want %q", tc.firstBug, tc.schedules, got, tc.want)
		}
	}
}
