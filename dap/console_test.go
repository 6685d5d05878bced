package dap_test

import (
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/interleave-dev/interleave/dap"
)

// outputs returns the queued output events, removing them.
func (d driver) outputs() []*godap.OutputEvent {
	var out []*godap.OutputEvent
	for _, e := range d.Events("output") {
		out = append(out, e.(*godap.OutputEvent))
	}
	return out
}

// TestLaunchAnsweredBeforeBuild: the launch response comes before the build, so that VS Code
// shows the session (Call Stack, Debug Console, progress) while it builds: a cold build of a
// minute showed nothing but a status-bar line. The build's output and progress follow the
// response.
func TestLaunchAnsweredBeforeBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	t.Setenv("TMPDIR", t.TempDir())
	dir := writeModule(t, feedModule)
	c := driver{t, session(t, dap.Config{NoDelve: true})}
	c.Timeout = 5 * time.Minute
	c.call("initialize", map[string]any{"adapterID": "interleave", "supportsProgressReporting": true})
	launch := c.call("launch", map[string]any{"type": "interleave", "request": "launch", "mode": "explore", "program": dir, "test": "TestDeadlock", "schedules": 50})
	c.event("initialized")
	var building, progress int
	for _, o := range c.outputs() {
		if strings.HasPrefix(o.Body.Output, "instrumenting and building ") {
			building = o.Seq
		}
	}
	if e := c.event("progressStart").(*godap.ProgressStartEvent); strings.HasPrefix(e.Body.Title, "Building ") {
		progress = e.Seq
	}
	if seq := launch.GetResponse().Seq; building <= seq || progress <= seq {
		t.Errorf("launch response #%d, build output #%d, build progress #%d: want the response first", seq, building, progress)
	}
	c.call("disconnect", map[string]any{"terminateDebuggee": true})
}

// TestStopWithoutNotification: Stop (the terminate request) ends the session with a line in
// the Debug Console and no notification — an output event of category "important" is a toast
// in VS Code, which every Stop showed — during the build as after it. A race is one line of
// the Debug Console that says "data race" once.
func TestStopWithoutNotification(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	t.Setenv("TMPDIR", t.TempDir())
	dir := writeModule(t, feedModule)
	for _, tt := range []struct {
		name string
		test string
		stop func(c driver)
	}{
		// Terminate right after the launch response, while the test builds (or, on a fast
		// machine, just after: either way no notification).
		{"during the build", "TestDeadlock", func(c driver) {}},
		{"at the deadlock", "TestDeadlock", func(c driver) {
			c.event("initialized")
			c.call("configurationDone", nil)
			if st := c.stopped(); st.Body.Reason != "exception" {
				t.Fatalf("stopped %+v, want the deadlock", st.Body)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := driver{t, session(t, dap.Config{NoDelve: true})}
			c.Timeout = 5 * time.Minute
			c.call("initialize", map[string]any{"adapterID": "interleave"})
			c.call("launch", map[string]any{"type": "interleave", "request": "launch", "mode": "explore", "program": dir, "test": tt.test, "schedules": 50})
			tt.stop(c)
			c.call("terminate", nil)
			c.event("terminated")
			said := ""
			for _, o := range c.outputs() {
				if o.Body.Category == "important" {
					t.Errorf("a notification on Stop: %q", o.Body.Output)
				}
				said += o.Body.Output
			}
			if !strings.Contains(said, "terminated by the client") {
				t.Errorf("Debug Console %q: want it to say the session was stopped", said)
			}
			c.call("disconnect", nil)
		})
	}
	t.Run("race", func(t *testing.T) {
		c := driver{t, session(t, dap.Config{NoDelve: true})}
		c.Timeout = 5 * time.Minute
		if err := c.Start(map[string]any{"type": "interleave", "request": "launch", "mode": "explore", "program": dir, "test": "TestRace", "schedules": 50}, nil); err != nil {
			t.Fatal(err)
		}
		c.event("terminated")
		races := 0
		for _, o := range c.outputs() {
			if strings.Contains(o.Body.Output, "data race") {
				races++
				if strings.Count(o.Body.Output, "data race") != 1 || !strings.HasPrefix(o.Body.Output, "data race between ") {
					t.Errorf("race line %q: want \"data race between ...\" once", o.Body.Output)
				}
			}
		}
		if races == 0 {
			t.Error("no race in the Debug Console")
		}
		c.call("disconnect", nil)
	})
}
