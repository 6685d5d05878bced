package engine_test

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
)

// stdinChildEnv makes this test binary, run again as a child, TestStdinChild alone: it reads
// its standard input until it is closed.
const stdinChildEnv = "INTERLEAVE_TEST_STDIN_CHILD"

// TestStdinChild is the child process of TestWatchdogWaitsForAChild: it ends when its
// standard input is closed, and says so.
func TestStdinChild(t *testing.T) {
	if os.Getenv(stdinChildEnv) == "" {
		t.Skip("the child process of TestWatchdogWaitsForAChild")
	}
	io.Copy(io.Discard, os.Stdin)
	fmt.Println("stdin closed")
}

// TestWatchdogWaitsForAChild checks that a test waiting for a child process it runs
// (exec.Cmd's Output, which waits in Wait) longer than the watchdog's limit is explored, not
// abandoned as a goroutine blocked outside the engine's control: a test that runs a real go
// build (29 s) was abandoned by the 10 s watchdog and the run exited 2. The child is this
// test binary, which reads its standard input until it is closed; a goroutine outside the
// engine closes it once the watchdog has seen the execution stalled for its limit while
// waiting for the child — without the distinction the watchdog abandons the execution first.
func TestWatchdogWaitsForAChild(t *testing.T) {
	saw := make(chan struct{}, 1)
	engine.SetWatchdogSawChild(func() {
		select {
		case saw <- struct{}{}:
		default:
		}
	})
	defer engine.SetWatchdogSawChild(nil)
	var pipes []*os.File
	defer func() {
		for _, w := range pipes {
			w.Close() // releases a child of an abandoned execution
		}
	}()
	rep := engine.Explore(func(t *engine.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatalf("pipe: %v", err)
		}
		pipes = append(pipes, w)
		go func() { // not instrumented: the engine does not see it
			<-saw
			w.Close()
		}()
		cmd := exec.Command(os.Args[0], "-test.run=^TestStdinChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), stdinChildEnv+"=1")
		cmd.Stdin = r
		out, err := cmd.Output()
		r.Close()
		if err != nil || !strings.HasPrefix(string(out), "stdin closed\n") {
			t.Fatalf("the child: %v\n%s", err, out)
		}
	}, engine.Config{Strategy: firstEnabled(), Schedules: 2, Watchdog: 100 * time.Millisecond})
	if rep.Stopped != "schedules" || rep.Schedules != 2 || len(rep.Limitations) != 0 || rep.First != nil {
		t.Fatalf("stopped by %s after %d schedules, limitations %+v, bug %v: want both schedules explored", rep.Stopped, rep.Schedules, rep.Limitations, bugOf(rep))
	}
}
