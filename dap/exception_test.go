package dap_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/interleave-dev/interleave/dap"
)

// twoLocks deadlocks with each goroutine blocked on its second lock, on lines of its own:
// G1 at twolocks_test.go:15, G2 at twolocks_test.go:22; each takes its first lock a line
// before.
var twoLocks = map[string]string{
	"go.mod": "module example.com/twolocks\n\ngo 1.24\n",
	"twolocks_test.go": `package twolocks

import (
	"sync"
	"testing"
)

func TestTwoLocks(t *testing.T) {
	var a, b sync.Mutex
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		a.Lock()
		b.Lock()
		b.Unlock()
		a.Unlock()
	}()
	go func() {
		defer wg.Done()
		b.Lock()
		a.Lock()
		a.Unlock()
		b.Unlock()
	}()
	wg.Wait()
}
`,
}

var goroutineAt = regexp.MustCompile(`^\t(G\d+)\b.* at ([^\s:]+:\d+)(?::\d+)?$`)

// TestDeadlockStop: at the stop on a deadlock (one step before the schedule reaches it), the
// exception text names each goroutine at the line the deadlock leaves it at — the bug's
// message's, which the Debug Console, interleave test and the Problems panel say — and,
// where it waits there already, at its Call Stack line; the goroutine that runs the last step
// is named at its Call Stack line, apart. Before, that goroutine was placed at its Call Stack
// line in place of the deadlock's (":14" where everything else said ":15"). And every step
// after a stop is preceded by a continued event for all threads, so that the editor clears the
// stop reasons of the threads not stepped (G1 stayed "PAUSED ON EXCEPTION" steps later).
func TestDeadlockStop(t *testing.T) {
	dir := writeModule(t, twoLocks)
	c := driver{t, session(t, dap.Config{NoDelve: true})}
	c.Timeout = 5 * time.Minute
	if err := c.Start(map[string]any{"type": "interleave", "request": "launch", "mode": "explore", "program": dir, "test": "TestTwoLocks"}, nil); err != nil {
		t.Fatal(err)
	}
	st := c.stopped()
	if st.Body.Reason != "exception" {
		t.Fatalf("stopped %+v, want the deadlock", st.Body)
	}
	info := c.call("exceptionInfo", map[string]any{"threadId": st.Body.ThreadId}).(*godap.ExceptionInfoResponse).Body
	top := func(thread int) string {
		fs := c.stack(thread)
		if len(fs) == 0 {
			t.Fatalf("thread %d has no frames", thread)
		}
		return fmt.Sprintf("%s:%d", fs[0].Source.Name, fs[0].Line)
	}
	// The message's positions, as the console and the CLI print them.
	bugAt := map[string]string{}
	for _, l := range strings.Split(info.Details.Message, "\n") {
		if m := goroutineAt.FindStringSubmatch(l); m != nil {
			bugAt[m[1]] = m[2]
		}
	}
	if bugAt["G1"] != "twolocks_test.go:15" || bugAt["G2"] != "twolocks_test.go:22" {
		t.Fatalf("the deadlock's message %q: want G1 at :15 and G2 at :22", info.Details.Message)
	}
	next := fmt.Sprintf("G%d", st.Body.ThreadId-1)
	lines := strings.Split(info.Description, "\n")
	said := map[string]string{}
	for _, l := range lines[1:] {
		if m := goroutineAt.FindStringSubmatch(l); m != nil && strings.Contains(l, " runs step ") {
			if m[1] != next || m[2] != top(st.Body.ThreadId) {
				t.Errorf("exception text line %q: want %s at its Call Stack line %s", l, next, top(st.Body.ThreadId))
			}
			said[m[1]+" now"] = m[2]
		} else if m != nil {
			said[m[1]] = m[2]
		}
	}
	for g, at := range bugAt {
		if said[g] != at {
			t.Errorf("exception text %q names %s at %q, want %s as the deadlock's message", info.Description, g, said[g], at)
		}
	}
	for _, th := range c.threads() {
		g := fmt.Sprintf("G%d", th.Id-1)
		if g != next && said[g] != "" && said[g] != top(th.Id) {
			t.Errorf("exception text names %s at %s, its Call Stack at %s", g, said[g], top(th.Id))
		}
	}
	if said[next+" now"] == "" {
		t.Errorf("exception text %q does not name %s, which runs the last step, at its Call Stack line %s", info.Description, next, top(st.Body.ThreadId))
	}

	// Moving around: each stop after a step is announced by a continued event for all
	// threads first.
	for _, cmd := range []string{"stepBack", "next", "stepBack"} {
		c.Events("continued")
		c.call(cmd, map[string]any{"threadId": st.Body.ThreadId})
		st = c.stopped()
		cont := c.Events("continued")
		if len(cont) != 1 || !cont[0].(*godap.ContinuedEvent).Body.AllThreadsContinued {
			t.Fatalf("%s: continued events %+v, want one for all threads", cmd, cont)
		}
	}
	c.call("disconnect", map[string]any{"terminateDebuggee": true})
}
