package engine

import "testing"

// TestStackSiteFollowsWhatItsGoroutinesDoLately: a go statement's goroutines grow their
// stacks as they start while most of those observed lately grew theirs; while they do, one in
// stackSiteProbe starts as usual and is observed, so that a go statement whose goroutines
// grew only in the first executions (a strategy's tables growing from empty) stops making
// them grow, and one whose goroutines keep growing goes on.
func TestStackSiteFollowsWhatItsGoroutinesDoLately(t *testing.T) {
	tests := []struct {
		name        string
		early       int  // goroutines that grew first
		laterGrow   bool // whether the later goroutines would grow
		wantPregrow bool // after 10,000 later goroutines
		maxFlip     int  // the later goroutines until pregrow is wantPregrow for good, at most
	}{
		{"grew only first", 1000, false, false, 40 * stackSiteProbe},
		{"keep growing", 1000, true, true, 0},
		{"never grew", 0, false, false, 0},
		{"grow from the start", 0, true, true, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s stackSite
			// The early goroutines all start before the first ends, as in a first execution.
			for range tc.early {
				if s.start() {
					t.Fatal("a goroutine grew its stack as it started before any had grown")
				}
			}
			for range tc.early {
				s.observe(true)
			}
			pregrown, last := 0, -1
			const later = 10000
			for i := range later {
				if s.start() {
					pregrown++
				} else {
					s.observe(tc.laterGrow)
				}
				if s.pregrow != tc.wantPregrow {
					last = i
				}
			}
			if s.pregrow != tc.wantPregrow || last+1 > tc.maxFlip {
				t.Errorf("pregrow %v after %d goroutines, last different at goroutine %d; want %v from goroutine %d on at the latest", s.pregrow, later, last, tc.wantPregrow, tc.maxFlip)
			}
			if tc.wantPregrow {
				// Only the probes start as usual.
				if probes := later - pregrown; probes > later/stackSiteProbe+2 || probes < later/stackSiteProbe-2 {
					t.Errorf("%d of %d goroutines started without growing their stacks, want one in %d", probes, later, stackSiteProbe)
				}
			} else if tc.early == 0 && pregrown > 0 {
				t.Errorf("%d goroutines grew their stacks as they started", pregrown)
			}
		})
	}
}
