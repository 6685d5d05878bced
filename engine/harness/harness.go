// Package harness is what an instrumented test calls: the instrumenter renames each TestXxx
// of the user's package and gives it a TestXxx that hands the original body, rewritten, to
// RunTest. The body keeps its *testing.T: it receives the test's own, and the instrumented
// code's calls of its methods (and of a testing.TB's, and of an interface's with the same
// methods) go through OfT, OfTB, Of and Run to the execution's per-schedule test, engine.T
// (hooks.go). RunTest explores the body as the interleave command configured it through the
// environment (see package explore); when the debug adapter launched the test, it serves the
// debugging session (package control), and when the interleave stress command runs it, it
// joins the stress driver (package stress).
//
// Like every package compiled into test binaries, it uses the standard library only.
package harness

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/control"
	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/stress"
)

// openEvents opens the event stream file the interleave command named in INTERLEAVE_EVENTS;
// nil when there is none.
func openEvents() *os.File {
	p := os.Getenv("INTERLEAVE_EVENTS")
	if p == "" {
		return nil
	}
	f, err := explore.OpenStream(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		fmt.Fprintf(os.Stderr, "interleave: events: %v\n", err)
		return nil
	}
	return f
}

// RunTest is what the instrumenter makes of a TestXxx function: it explores test (the test's
// original function, rewritten, which receives t itself; see Body) as explore.Test does, configured by the INTERLEAVE_* environment the
// interleave command sets, streams progress and the result as events, and minimizes the
// schedule of a bug before saving it (INTERLEAVE_MINIMIZE, a duration; 0 turns it off).
func RunTest(t *testing.T, test func(*testing.T)) {
	t.Helper()
	body := Body(t, test)
	defer bound.Delete(t)
	runBody(t, body)
}

// runBody explores body, the test t's body, debugs it or joins the stress driver with it, as
// the environment says (RunTest).
func runBody(t *testing.T, body func(*engine.T)) {
	t.Helper()
	if addr := os.Getenv("INTERLEAVE_DEBUG"); addr != "" {
		control.Serve(t, body, addr)
		return
	}
	if plan, err := stress.PlanFromEnv(); err != nil {
		t.Fatal(err)
	} else if plan != nil {
		stress.Join(t, plan, body)
		return
	}
	opts := []explore.Option{explore.Minimize(5 * time.Second)}
	if f := openEvents(); f != nil {
		defer f.Close()
		opts = append(opts, explore.EventLog(f))
	}
	explore.Test(t, body, opts...)
}
