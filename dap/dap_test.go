package dap_test

import (
	"io"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/interleave-dev/interleave/dap"
	"github.com/interleave-dev/interleave/dap/daptest"
)

// example copies testdata/examples/<name> into a temporary directory, so that the schedules a
// session saves stay out of the repository.
func example(t testing.TB, name string) string {
	t.Helper()
	src := filepath.Join("..", "testdata", "examples", name)
	dst := filepath.Join(t.TempDir(), name)
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if strings.HasPrefix(rel, ".interleave") {
			return filepath.SkipDir
		}
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// session serves a session over pipes and returns the client; the session ends when the
// test does.
func session(t testing.TB, cfg dap.Config) *daptest.Client {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	s := dap.NewSession(sr, sw, cfg)
	done := make(chan error, 1)
	go func() { done <- s.Serve(); sw.Close() }()
	c := daptest.New(cr, cw)
	t.Cleanup(func() {
		cw.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return c
}

// driver fails the test on any protocol error.
type driver struct {
	t testing.TB
	*daptest.Client
}

func (d driver) call(command string, args any) godap.ResponseMessage {
	d.t.Helper()
	r, err := d.Call(command, args)
	if err != nil {
		d.t.Fatal(err)
	}
	return r
}

func (d driver) stopped() *godap.StoppedEvent {
	d.t.Helper()
	e, err := d.Stopped()
	if err != nil {
		d.t.Fatal(err)
	}
	return e
}

func (d driver) event(name string) godap.EventMessage {
	d.t.Helper()
	e, err := d.Event(name)
	if err != nil {
		d.t.Fatal(err)
	}
	return e
}

func (d driver) threads() []godap.Thread {
	d.t.Helper()
	return d.call("threads", nil).(*godap.ThreadsResponse).Body.Threads
}

func (d driver) stack(thread int) []godap.StackFrame {
	d.t.Helper()
	return d.call("stackTrace", map[string]any{"threadId": thread}).(*godap.StackTraceResponse).Body.StackFrames
}

func (d driver) variables(ref int) []godap.Variable {
	d.t.Helper()
	return d.call("variables", map[string]any{"variablesReference": ref}).(*godap.VariablesResponse).Body.Variables
}

// scopes returns the variables of each scope of a frame.
func (d driver) scopes(frame int) map[string][]godap.Variable {
	d.t.Helper()
	out := make(map[string][]godap.Variable)
	for _, sc := range d.call("scopes", map[string]any{"frameId": frame}).(*godap.ScopesResponse).Body.Scopes {
		out[sc.Name] = d.variables(sc.VariablesReference)
	}
	return out
}

func find(vs []godap.Variable, name string) *godap.Variable {
	for i := range vs {
		if vs[i].Name == name {
			return &vs[i]
		}
	}
	return nil
}

// stepOf reads "i of N" from the Scheduler scope of the thread's top frame.
func (d driver) stepOf(thread int) string {
	d.t.Helper()
	fs := d.stack(thread)
	if len(fs) == 0 {
		d.t.Fatalf("thread %d has no frames", thread)
	}
	v := find(d.scopes(fs[0].Id)["Scheduler"], "step")
	if v == nil {
		d.t.Fatal("no step in the Scheduler scope")
	}
	return v.Value
}

func launchExplore(dir string) map[string]any {
	return map[string]any{"type": "interleave", "request": "launch", "name": "Explore", "mode": "explore", "program": dir,
		"test": "TestOppositeTransfers", "strategy": "pct", "schedules": 10000, "d": 3}
}

// TestExploreSession drives a whole session as VS Code does: explore lockorder until its
// deadlock, look at the goroutines, their stacks and variables, step back, step, schedule a
// goroutine by hand, stop at a breakpoint, and disconnect.
func TestExploreSession(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir := example(t, "lockorder")
	bank := filepath.Join(dir, "bank.go")
	c := driver{t, session(t, dap.Config{})}
	c.Timeout = 5 * time.Minute
	init := c.call("initialize", map[string]any{"adapterID": "interleave", "linesStartAt1": true, "columnsStartAt1": true, "supportsProgressReporting": true}).(*godap.InitializeResponse)
	if !init.Body.SupportsStepBack || !init.Body.SupportsConfigurationDoneRequest || !init.Body.SupportsCancelRequest {
		t.Errorf("capabilities %+v: want step back, configurationDone, cancel", init.Body)
	}
	c.call("launch", launchExplore(dir))
	pid := c.event("process").(*godap.ProcessEvent).Body.SystemProcessId
	c.event("initialized")
	c.call("setExceptionBreakpoints", map[string]any{"filters": []string{"deadlock", "panic", "leak", "fail"}})
	c.call("configurationDone", nil)

	start := c.event("progressStart").(*godap.ProgressStartEvent)
	update := c.event("progressUpdate").(*godap.ProgressUpdateEvent)
	end := c.event("progressEnd").(*godap.ProgressEndEvent)
	if start.Body.ProgressId != update.Body.ProgressId || update.Body.ProgressId != end.Body.ProgressId ||
		!strings.Contains(update.Body.Message, "schedules/s") || !strings.Contains(update.Body.Message, "distinct interleavings") {
		t.Errorf("progress: %+v, %+v, %+v", start.Body, update.Body, end.Body)
	}
	st := c.stopped()
	if st.Body.Reason != "exception" || !strings.Contains(st.Body.Text, "all goroutines are blocked") {
		t.Fatalf("stopped %+v: want the deadlock", st.Body)
	}
	info := c.call("exceptionInfo", map[string]any{"threadId": st.Body.ThreadId}).(*godap.ExceptionInfoResponse)
	if info.Body.ExceptionId != "deadlock" || !strings.Contains(info.Body.Details.Message, "G1 lock at bank.go:46:2") {
		t.Errorf("exceptionInfo %+v", info.Body)
	}

	// The goroutines: G0 waits in the test, G1 and G2 are in Transfer.
	threads := c.threads()
	names := map[int]string{}
	for _, th := range threads {
		names[th.Id] = th.Name
	}
	if len(threads) != 3 || !strings.HasPrefix(names[1], "G0 ") || !strings.Contains(names[2], "(bank_test.go:16)") || !strings.Contains(names[3], "(bank_test.go:22)") {
		t.Fatalf("threads %v", names)
	}
	// The stopped goroutine takes its first lock at bank.go:42; the other holds its first lock
	// and waits at bank.go:46.
	next, other := st.Body.ThreadId, 5-st.Body.ThreadId
	fs := c.stack(next)
	if len(fs) < 2 || fs[0].Source.Path != bank || fs[0].Line != 42 || fs[0].Column != 2 || fs[0].Name != "lockorder.Transfer" {
		t.Fatalf("stack of %s: %+v", names[next], fs)
	}
	if fs[1].Source.Path != filepath.Join(dir, "bank_test.go") {
		t.Errorf("caller frame in %s", fs[1].Source.Path)
	}
	ofs := c.stack(other)
	if ofs[0].Line != 46 || ofs[0].Source.Path != bank {
		t.Fatalf("stack of %s: %+v", names[other], ofs)
	}

	// Variables: the real locals of Transfer, and the lock the other goroutine holds.
	sc := c.scopes(ofs[0].Id)
	from, amount := find(sc["Locals"], "from"), find(sc["Locals"], "amount")
	if from == nil || amount == nil || !strings.Contains(from.Value, `id: "`) || from.VariablesReference == 0 {
		t.Fatalf("Locals of %s: %+v", names[other], sc["Locals"])
	}
	if want := map[int]string{2: "30", 3: "50"}[other]; amount.Value != want {
		t.Errorf("amount = %s, want %s", amount.Value, want)
	}
	fields := c.variables(from.VariablesReference)
	if f := find(fields, "balance"); f == nil || f.Value != "100" {
		t.Errorf("from's fields: %+v", fields)
	}
	holds := find(sc["Scheduler"], "holds")
	if holds == nil || holds.Value != "1 lock(s)" {
		t.Fatalf("Scheduler scope: %+v", sc["Scheduler"])
	}
	if h := c.variables(holds.VariablesReference); len(h) != 1 || !strings.HasPrefix(h[0].Value, "mutex 0x") {
		t.Errorf("held locks: %+v", h)
	}
	if p := find(sc["Scheduler"], "pending"); p == nil || p.Value != "lock at bank.go:46:2" {
		t.Errorf("pending: %+v", p)
	}
	ev := c.call("evaluate", map[string]any{"expression": "from.balance + amount", "frameId": ofs[0].Id, "context": "watch"}).(*godap.EvaluateResponse)
	if want := map[int]string{2: "130", 3: "150"}[other]; ev.Body.Result != want {
		t.Errorf("evaluate from.balance + amount = %s, want %s", ev.Body.Result, want)
	}
	step := c.stepOf(next)
	var n, total int
	if _, err := fmt.Sscanf(step, "%d of %d", &n, &total); err != nil || n != total-1 {
		t.Fatalf("step %q: want the last step", step)
	}

	// Three steps back, then one forward.
	for i := 1; i <= 3; i++ {
		c.call("stepBack", map[string]any{"threadId": next})
		st = c.stopped()
		if got, want := c.stepOf(st.Body.ThreadId), fmt.Sprintf("%d of %d", n-i, total); got != want {
			t.Fatalf("after %d step(s) back: step %s, want %s", i, got, want)
		}
	}
	c.call("next", map[string]any{"threadId": st.Body.ThreadId})
	st = c.stopped()
	if got, want := c.stepOf(st.Body.ThreadId), fmt.Sprintf("%d of %d", n-2, total); got != want || st.Body.Reason != "step" {
		t.Fatalf("after next: %s (%s), want %s", got, st.Body.Reason, want)
	}

	// Schedule another enabled goroutine by hand.
	manual := 0
	for _, th := range c.threads() {
		if th.Id != st.Body.ThreadId && strings.Contains(th.Name, "[enabled]") {
			manual = th.Id
		}
	}
	if manual == 0 {
		t.Fatalf("no other enabled goroutine at step %d: %+v", n-2, c.threads())
	}
	c.call("next", map[string]any{"threadId": manual})
	st = c.stopped()
	if got := c.stepOf(st.Body.ThreadId); !strings.HasPrefix(got, fmt.Sprintf("%d of ?", n-1)) || !strings.Contains(got, "left the schedule") {
		t.Errorf("after the manual step: step %q", got)
	}

	// A breakpoint on the second lock: continue stops there.
	bp := c.call("setBreakpoints", map[string]any{"source": map[string]any{"path": bank}, "lines": []int{46, 44}}).(*godap.SetBreakpointsResponse)
	if len(bp.Body.Breakpoints) != 2 || !bp.Body.Breakpoints[0].Verified || bp.Body.Breakpoints[1].Verified {
		t.Errorf("breakpoints %+v: want line 46 verified (a lock), 44 not (a comment)", bp.Body.Breakpoints)
	}
	c.call("continue", map[string]any{"threadId": st.Body.ThreadId})
	st = c.stopped()
	if st.Body.Reason != "breakpoint" {
		t.Fatalf("after continue: stopped %+v, want a breakpoint", st.Body)
	}
	if fs := c.stack(st.Body.ThreadId); fs[0].Line != 46 || fs[0].Source.Path != bank {
		t.Errorf("stopped at %s:%d, want bank.go:46", fs[0].Source.Path, fs[0].Line)
	}

	c.call("disconnect", map[string]any{"terminateDebuggee": true})
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("the test process %d still runs after disconnect", pid)
	}
	if left, _ := filepath.Glob(filepath.Join(os.TempDir(), "interleave-dap-*")); len(left) > 0 {
		t.Errorf("temporary files left after disconnect: %v", left)
	}
}
