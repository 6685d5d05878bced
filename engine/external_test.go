package engine_test

import (
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// A mark the real test behind the handle gets during an execution (code that was not
// instrumented called t.Error on it) is the execution's failure, seen when a goroutine ends or
// when the execution does; a mark it had before the execution began is not; a skip is the
// test's skip.
func TestExternalMarks(t *testing.T) {
	for _, tc := range []struct {
		name           string
		before         bool // the real test was marked failed before the execution
		inGoroutine    bool // the mark is made by a goroutine the test starts, not the body
		skip           bool
		wantBug        bool
		wantSkipped    bool
		wantBugMessage string
	}{
		{name: "failed by the body", wantBug: true, wantBugMessage: "the real *testing.T was marked failed"},
		{name: "failed by a goroutine", inGoroutine: true, wantBug: true, wantBugMessage: "the real *testing.T was marked failed"},
		{name: "failed before", before: true},
		{name: "skipped", skip: true, wantSkipped: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			failed, skipped := tc.before, false
			mark := func() {
				if tc.skip {
					skipped = true
				} else {
					failed = true
				}
			}
			r := engine.Run(func(et *engine.T) {
				et.External(func() (bool, bool) { return failed, skipped })
				if !tc.inGoroutine {
					mark()
					return
				}
				done := engine.MakeChan[struct{}](0, "x.go:1")
				engine.Go(func() {
					mark()
					engine.Close(done, "x.go:2")
				}, "x.go:3")
				engine.Recv(done, "x.go:4")
			}, strategy.NewDFS(), engine.Config{})
			if got := r.Bug != nil; got != tc.wantBug {
				t.Fatalf("bug %v, want one: %v", r.Bug, tc.wantBug)
			}
			if tc.wantBug && (r.Bug.Kind != engine.Fail || !strings.Contains(r.Bug.Message, tc.wantBugMessage)) {
				t.Errorf("bug %s %q, want a fail %q", r.Bug.Kind, r.Bug.Message, tc.wantBugMessage)
			}
			if r.Skipped != tc.wantSkipped {
				t.Errorf("skipped %v, want %v", r.Skipped, tc.wantSkipped)
			}
		})
	}
}

// In stress mode the real test's mark is the iteration's failure, seen when its function is
// over.
func TestExternalMarksStress(t *testing.T) {
	failed := false
	st := engine.NewStressT("TestX", nil)
	st.External(func() (bool, bool) { return failed, false })
	engine.RunStress(st, func(*engine.T) { failed = true })
	if r := st.StressResult(); !r.Failed || !strings.Contains(r.Message, "the real *testing.T was marked failed") {
		t.Errorf("stress result %+v, want the real test's failure", r)
	}
}
