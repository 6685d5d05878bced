package dap_test

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/interleave-dev/interleave/dap"
	"github.com/interleave-dev/interleave/dap/dapext"
	"github.com/interleave-dev/interleave/dap/daptest"
	"github.com/interleave-dev/interleave/engine/instrument"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// example copies testdata/examples/<name> into a temporary directory, so that the schedules a
// session saves stay out of the repository.
func example(t testing.TB, name string) string {
	t.Helper()
	return copyModule(t, filepath.Join("..", "testdata", "examples", name))
}

// copyModule copies the module at src into a temporary directory.
func copyModule(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
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

// stepOf reads "i of N" from the Scheduler scope of the thread's top frame: the execution is
// paused before step i (1-based, as the timeline numbers its marks), or "ended after N steps".
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

	// The build is shown as progress from the start, then the exploration.
	if build := c.event("progressStart").(*godap.ProgressStartEvent); !strings.HasPrefix(build.Body.Title, "Building lockorder") {
		t.Errorf("first progress %+v, want the build's", build.Body)
	}
	if end := c.event("progressEnd").(*godap.ProgressEndEvent); !strings.HasPrefix(end.Body.Message, "built in ") {
		t.Errorf("the build's progress ends with %q", end.Body.Message)
	}
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
	if info.Body.ExceptionId != "deadlock" || !strings.Contains(info.Body.Details.Message, "lock at bank.go:46:2") {
		t.Errorf("exceptionInfo %+v", info.Body)
	}
	// The text shown in the editor names each goroutine at the line its top frame highlights,
	// and says where the schedule reaches the deadlock on its first line.
	if d := info.Body.Description; !strings.HasPrefix(d, "all goroutines are blocked (the schedule reaches this at step ") ||
		!strings.Contains(d, "lock at bank.go:46\n") && !strings.HasSuffix(d, "lock at bank.go:46") || strings.Contains(d, ":46:2") {
		t.Errorf("exception description %q", d)
	}

	// The goroutines: G0 waits in the test, G1 and G2 are in Transfer.
	threads := c.threads()
	names := map[int]string{}
	for _, th := range threads {
		names[th.Id] = th.Name
	}
	if len(threads) != 3 || !strings.HasPrefix(names[1], "G0 ") || !strings.HasPrefix(names[2], "G1 ") || !strings.HasPrefix(names[3], "G2 ") {
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
	if h := c.variables(holds.VariablesReference); len(h) != 1 || !strings.HasPrefix(h[0].Value, "mutex 0x") || !strings.HasSuffix(h[0].Value, " locked at bank.go:42:2") {
		t.Errorf("held locks: %+v", h)
	}
	// The seed the launch gave (the default, 1), not the 19-digit seed derived for the
	// execution, which is shown beside it.
	if seed := find(sc["Scheduler"], "seed"); seed == nil || seed.Value != "1" {
		t.Errorf("seed: %+v", seed)
	}
	if p := find(sc["Scheduler"], "pending"); p == nil || p.Value != "lock at bank.go:46:2" {
		t.Errorf("pending: %+v", p)
	}
	if vc := find(sc["Scheduler"], "vector clock"); vc == nil || !strings.HasPrefix(vc.Value, "[") {
		t.Errorf("vector clock: %+v", vc)
	}
	ev := c.call("evaluate", map[string]any{"expression": "from.balance + amount", "frameId": ofs[0].Id, "context": "watch"}).(*godap.EvaluateResponse)
	if want := map[int]string{2: "130", 3: "150"}[other]; ev.Body.Result != want {
		t.Errorf("evaluate from.balance + amount = %s, want %s", ev.Body.Result, want)
	}
	step := c.stepOf(next)
	var n, total int
	if _, err := fmt.Sscanf(step, "%d of %d", &n, &total); err != nil || n != total {
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

	// After each stop the step event says where the execution is in its schedule (what the
	// timeline marks), and interleaveGotoStep moves it to any step, back or forward.
	steps := c.Events(dapext.StepEventName)
	if len(steps) < 5 {
		t.Fatalf("%d step events for 5 stops", len(steps))
	}
	if b := steps[len(steps)-1].(*dapext.StepEvent).Body; b.Step != n-3 || b.Current != n-2 || b.Steps != total || !b.Following || b.Ended || filepath.Ext(b.Schedule) != ".json" {
		t.Errorf("step event %+v: want step %d of %d following the saved schedule", b, n-2, total)
	}
	for _, to := range []int{1, total - 1, 0, n - 3} {
		c.call(dapext.GotoStepCommand, map[string]any{"step": to})
		st = c.stopped()
		// The Scheduler scope and the step event the timeline marks agree: after to steps
		// the execution is before step to+1.
		if got, want := c.stepOf(st.Body.ThreadId), fmt.Sprintf("%d of %d", to+1, total); got != want || st.Body.Reason != "goto" {
			t.Fatalf("after going to step %d: %s (%s), want %s", to, got, st.Body.Reason, want)
		}
		if b := c.event(dapext.StepEventName).(*dapext.StepEvent).Body; b.Step != to || b.Current != to+1 {
			t.Errorf("step event after going to %d: %+v", to, b)
		}
	}
	if _, err := c.Call(dapext.GotoStepCommand, map[string]any{"step": total + 1}); err == nil || !strings.Contains(err.Error(), "not in the schedule") {
		t.Errorf("going past the schedule's end: %v, want an error", err)
	}

	// interleaveTimeline returns every step of the schedule with what the timeline draws: the
	// locks named as the source spells them, the goroutines enabled at each step (the
	// deadlock needs a preemption: a switch away from a goroutine still enabled), and leaves
	// the execution paused where it was.
	tl := c.call(dapext.TimelineCommand, nil).(*dapext.TimelineResponse)
	if b := tl.Body; len(b.Steps) != total || b.Step != n-3 || !b.Following || filepath.Ext(b.Schedule) != ".json" {
		t.Fatalf("timeline: step %d, %d steps, following %v, schedule %q: want %d steps run of %d", b.Step, len(b.Steps), b.Following, b.Schedule, n-3, total)
	}
	st = c.stopped()
	if got, want := c.stepOf(st.Body.ThreadId), fmt.Sprintf("%d of %d", n-2, total); got != want {
		t.Errorf("after the timeline request: step %s, want %s", got, want)
	}
	// Each goroutine locks its from.mu: two mutexes, the same name, two object numbers.
	locks, preemptions := map[int]string{}, 0
	for i, s := range tl.Body.Steps {
		if s.Op == "lock" {
			locks[s.Obj] = s.Name + " at " + s.Pos
		}
		if !slices.Contains(s.Enabled, s.G) {
			t.Errorf("timeline step %d: G%d ran, but the enabled goroutines are %v", i+1, s.G, s.Enabled)
		}
		if i > 0 && s.G != tl.Body.Steps[i-1].G && slices.Contains(s.Enabled, tl.Body.Steps[i-1].G) {
			preemptions++
		}
	}
	if len(locks) != 2 || locks[0] != "" || slices.ContainsFunc(slices.Collect(maps.Values(locks)), func(l string) bool { return l != "from.mu at bank.go:42:2" }) || preemptions == 0 {
		t.Errorf("timeline: locks %v, %d preemption(s): want from.mu at bank.go:42:2 twice, two objects, a preemption\n%+v", locks, preemptions, tl.Body.Steps)
	}

	// Stepping a goroutine that cannot run is not an error: the Debug Console says why, and
	// the session stops again where it was, on that goroutine.
	for _, th := range c.threads() {
		if strings.Contains(th.Name, "[blocked]") {
			before := c.stepOf(st.Body.ThreadId)
			c.call("next", map[string]any{"threadId": th.Id})
			said := ""
			for !strings.Contains(said, "cannot run: it is blocked") {
				said = c.event("output").(*godap.OutputEvent).Body.Output // earlier output first
			}
			again := c.stopped()
			if again.Body.ThreadId != th.Id || c.stepOf(st.Body.ThreadId) != before {
				t.Errorf("stepping blocked G%d: stopped %+v at step %s, want the same step %s on it", th.Id-1, again.Body, c.stepOf(st.Body.ThreadId), before)
			}
			break
		}
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

	// To the end, without breakpoints: the execution that left the schedule is saved.
	c.Events("output")
	c.call("setBreakpoints", map[string]any{"source": map[string]any{"path": bank}, "lines": []int{}})
	c.call("continue", map[string]any{"threadId": st.Body.ThreadId})
	st = c.stopped()
	var saved string
	for _, e := range c.Events("output") {
		if out := e.(*godap.OutputEvent).Body.Output; strings.HasPrefix(out, "the new schedule is saved in ") {
			saved = strings.TrimSpace(strings.TrimPrefix(out, "the new schedule is saved in "))
		}
	}
	if f, err := schedule.Load(saved); err != nil || f.Test.Name != "TestOppositeTransfers" || len(f.Steps) == 0 {
		t.Errorf("the new schedule %q: %v", saved, err)
	}

	c.call("disconnect", map[string]any{"terminateDebuggee": true})
	if instrument.ProcessAlive(pid) {
		t.Errorf("the test process %d still runs after disconnect", pid)
	}
	if left, _ := filepath.Glob(filepath.Join(os.TempDir(), "interleave-dap-*")); len(left) > 0 {
		t.Errorf("temporary files left after disconnect: %v", left)
	}
}

// scheduleOf explores example dir's test in a session of its own and returns the schedule
// file it saved.
func scheduleOf(t *testing.T, dir, test string) string {
	t.Helper()
	c := driver{t, session(t, dap.Config{NoDelve: true})}
	c.Timeout = 5 * time.Minute
	if err := c.Start(map[string]any{"type": "interleave", "request": "launch", "mode": "explore", "program": dir, "test": test}, nil); err != nil {
		t.Fatal(err)
	}
	if st := c.stopped(); st.Body.Reason != "exception" {
		t.Fatalf("exploring %s: stopped %+v, want a bug", test, st.Body)
	}
	c.call("disconnect", nil)
	files, _ := filepath.Glob(filepath.Join(dir, ".interleave", "schedules", test+"-*.json"))
	if len(files) != 1 {
		t.Fatalf("schedules saved: %v, want one", files)
	}
	return files[0]
}

// transcript describes everything a client sees at a stop: threads, every thread's frames,
// and every frame's scopes, one variable a line. Addresses are left out: they differ from
// one process to the next.
func (d driver) transcript() string {
	d.t.Helper()
	var b strings.Builder
	for _, th := range d.threads() {
		fmt.Fprintf(&b, "thread %d %s\n", th.Id, th.Name)
		for _, f := range d.stack(th.Id) {
			fmt.Fprintf(&b, "  frame %s %s:%d:%d\n", f.Name, f.Source.Path, f.Line, f.Column)
			sc := d.scopes(f.Id)
			for _, name := range []string{"Scheduler", "Locals"} {
				for _, v := range sc[name] {
					fmt.Fprintf(&b, "    %s %s = %s\n", name, v.Name, stableValue(v.Value))
					if v.VariablesReference > 0 && (name == "Scheduler" || !strings.HasPrefix(v.Type, "*github.com/interleave-dev")) {
						for _, c := range d.variables(v.VariablesReference) {
							fmt.Fprintf(&b, "      %s = %s\n", c.Name, stableValue(c.Value))
						}
					}
				}
			}
		}
	}
	return hexAddr.ReplaceAllString(b.String(), "0x…")
}

var hexAddr = regexp.MustCompile(`0x[0-9a-f]+`)

// stableValue is a variable's value as it is the same from one process to the next: its
// addresses as 0x…, and a value the adapter cut short ("…" at its end, after a number of
// characters that the addresses' lengths shift) cut where no address before can move it.
func stableValue(v string) string {
	if !strings.HasSuffix(v, "…") {
		return v
	}
	r := []rune(hexAddr.ReplaceAllString(v, "0x…"))
	if len(r) > 80 {
		r = r[:80]
	}
	return string(r) + "…"
}

func launchReplay(file string) map[string]any {
	return map[string]any{"type": "interleave", "request": "launch", "name": "Replay", "mode": "replay", "scheduleFile": file, "stopOnEntry": true}
}

// TestReplaySession replays a saved schedule of closedchan: paused on entry, stepped, run to
// its bug and past it to the end, stepped back, reverse-continued to a breakpoint, and
// restarted.
func TestReplaySession(t *testing.T) {
	dir := example(t, "closedchan")
	file := scheduleOf(t, dir, "TestCloseWhileSending")
	c := driver{t, session(t, dap.Config{})}
	c.Timeout = 5 * time.Minute
	if err := c.Start(launchReplay(file), nil); err != nil {
		t.Fatal(err)
	}
	st := c.stopped()
	if st.Body.Reason != "entry" || st.Body.ThreadId != 1 {
		t.Fatalf("stopped %+v: want entry, in G0", st.Body)
	}
	var total int
	if _, err := fmt.Sscanf(c.stepOf(1), "1 of %d", &total); err != nil {
		t.Fatalf("step %q: want 1 of N", c.stepOf(1))
	}
	for i := 1; i <= 3; i++ {
		c.call("next", map[string]any{"threadId": st.Body.ThreadId})
		st = c.stopped()
		if got := c.stepOf(st.Body.ThreadId); got != fmt.Sprintf("%d of %d", i+1, total) {
			t.Fatalf("after %d next: step %s", i, got)
		}
	}
	c.call("continue", map[string]any{"threadId": st.Body.ThreadId})
	st = c.stopped()
	if st.Body.Reason != "exception" || !strings.HasPrefix(st.Body.Text, "send on closed channel (the schedule reaches this at step ") || st.Body.ThreadId != 2 {
		t.Fatalf("continue: stopped %+v, want the panic of G1", st.Body)
	}
	if got := c.stepOf(2); got != fmt.Sprintf("%d of %d", total, total) {
		t.Errorf("the panic one step away at step %s, want %d", got, total)
	}
	queue := filepath.Join(dir, "queue.go")
	fs := c.stack(2)
	if fs[0].Source.Path != queue || fs[0].Line != 42 || fs[0].Name != "closedchan.(*Queue).Send" {
		t.Fatalf("G1 at %+v, want the send of Queue.Send", fs[0])
	}
	sc := c.scopes(fs[0].Id)
	if v := find(sc["Locals"], "msg"); v == nil || !strings.HasPrefix(v.Value, `"`) {
		t.Errorf("Locals of Send: %+v", sc["Locals"])
	}
	waits := find(sc["Scheduler"], "waits on")
	if waits == nil || waits.Value != "1 channel(s)" {
		t.Fatalf("Scheduler scope: %+v", sc["Scheduler"])
	}
	ch := c.variables(waits.VariablesReference)
	if len(ch) != 1 || !strings.HasPrefix(ch[0].Value, "send to;") || !strings.HasSuffix(ch[0].Value, "of 4 buffered") {
		t.Fatalf("channels: %+v", ch)
	}
	if cv := c.variables(ch[0].VariablesReference); find(cv, "closed") == nil || find(cv, "closed").Value != "true" {
		t.Errorf("channel: %+v", cv)
	}

	// Past the bug to the end: the panicking goroutine is still shown, with its stack.
	c.call("continue", map[string]any{"threadId": 2})
	st = c.stopped()
	if st.Body.Reason != "exception" || st.Body.ThreadId != 2 {
		t.Fatalf("at the end: stopped %+v", st.Body)
	}
	if got := c.stepOf(2); got != fmt.Sprintf("ended after %d steps", total) {
		t.Errorf("at the end: step %s", got)
	}
	if r, err := c.Call("next", map[string]any{"threadId": 2}); err == nil || !strings.Contains(err.Error(), "ended") {
		t.Errorf("next at the end: %v, %v", r, err)
	}
	c.call("stepBack", map[string]any{"threadId": 2})
	st = c.stopped()
	if got := c.stepOf(st.Body.ThreadId); got != fmt.Sprintf("%d of %d", total, total) {
		t.Errorf("after a step back from the end: step %s", got)
	}

	// Reverse-continue to the previous send.
	c.call("setBreakpoints", map[string]any{"source": map[string]any{"path": queue}, "lines": []int{42}})
	c.call("reverseContinue", map[string]any{"threadId": st.Body.ThreadId})
	st = c.stopped()
	var k int
	if _, err := fmt.Sscanf(c.stepOf(st.Body.ThreadId), "%d of", &k); err != nil || st.Body.Reason != "breakpoint" || k >= total {
		t.Fatalf("reverseContinue: stopped %+v at step %s", st.Body, c.stepOf(st.Body.ThreadId))
	}
	if fs := c.stack(st.Body.ThreadId); fs[0].Line != 42 {
		t.Errorf("reverseContinue stopped at line %d, want 42", fs[0].Line)
	}

	c.call("restart", nil)
	st = c.stopped()
	if got := c.stepOf(st.Body.ThreadId); st.Body.Reason != "entry" || got != fmt.Sprintf("1 of %d", total) {
		t.Errorf("restart: stopped %+v at step %s", st.Body, got)
	}
	c.call("disconnect", nil)
}

// The debugger replays a schedule after a comment and a blank line were added above the code
// on its path: it finds the schedule's positions again and reaches the same bug.
func TestReplaySessionAfterEdit(t *testing.T) {
	dir := example(t, "closedchan")
	file := scheduleOf(t, dir, "TestCloseWhileSending")
	queue := filepath.Join(dir, "queue.go")
	src, err := os.ReadFile(queue)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(queue, []byte(strings.Replace(string(src), "\nimport (", "\n// Edited since the schedule was saved.\n\nimport (", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	c := driver{t, session(t, dap.Config{NoDelve: true})}
	c.Timeout = 5 * time.Minute
	if err := c.Start(launchReplay(file), nil); err != nil {
		t.Fatal(err)
	}
	st := c.stopped()
	if st.Body.Reason != "entry" {
		t.Fatalf("stopped %+v: want entry", st.Body)
	}
	c.call("continue", map[string]any{"threadId": st.Body.ThreadId})
	st = c.stopped()
	if st.Body.Reason != "exception" || !strings.HasPrefix(st.Body.Text, "send on closed channel") {
		t.Fatalf("continue: stopped %+v, want the panic of the schedule", st.Body)
	}
	c.call("disconnect", nil)
}

// writeModule writes a module of one package from name → content.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestLaunchErrors checks that a launch that cannot work fails with a response that says why,
// and that the session goes on (a disconnect is still answered).
func TestLaunchErrors(t *testing.T) {
	lockorder := example(t, "lockorder")
	broken := writeModule(t, map[string]string{
		"go.mod":         "module example.com/broken\n\ngo 1.24\n",
		"broken.go":      "package broken\n\nfunc F() int { return undefinedThing }\n",
		"broken_test.go": "package broken\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { F() }\n",
	})
	// A schedule file is data: a build flag it records that would run a program is refused.
	crafted := filepath.Join(t.TempDir(), "crafted.json")
	var b strings.Builder
	f := &schedule.File{Test: schedule.Test{Module: "example.com/lockorder", Package: "example.com/lockorder", Name: "TestOppositeTransfers"},
		BuildFlags: []string{"-tags=x", "-toolexec=/bin/false"}}
	if err := f.Encode(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(crafted, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   map[string]any
		errors string
	}{
		{"recorded flag that runs a program", map[string]any{"mode": "replay", "scheduleFile": crafted, "cwd": lockorder}, "records the build flag -toolexec=/bin/false, which a schedule may not carry"},
		{"bad mode", map[string]any{"mode": "bogus", "program": lockorder}, `mode "bogus"`},
		{"no program", map[string]any{"mode": "explore", "test": "TestX"}, `needs "program"`},
		{"missing program", map[string]any{"program": filepath.Join(lockorder, "nope")}, "no such file"},
		{"unknown strategy", map[string]any{"program": lockorder, "strategy": "nope"}, `unknown strategy "nope"`},
		{"unknown parameter", map[string]any{"program": lockorder, "strategy": "pct", "zz": 1}, `option "zz" is not accepted (accepted: buildFlags, cwd, env, max-steps, mode, points, program, races, scheduleFile, schedules, seed, stopOnEntry, strategy, strict-leaks, tags, test, then, time, and the strategies' parameters (`},
		{"parameter of another strategy", map[string]any{"program": lockorder, "strategy": "pct", "max": 1}, `pct: unknown parameter "max"`},
		{"bad schedules", map[string]any{"program": lockorder, "schedules": -1}, "option schedules: -1: want a number of schedules ≥ 0"},
		{"bad time", map[string]any{"program": lockorder, "time": "soon"}, `option time: "soon": want a duration`},
		{"bad type", map[string]any{"program": lockorder, "schedules": "many"}, `option schedules: "many": want an integer`},
		{"bad then", map[string]any{"program": lockorder, "then": "pct:q=1"}, `then: pct: unknown parameter "q"`},
		{"no such test", map[string]any{"program": lockorder, "test": "TestNope"}, "has no test TestNope (it has TestOppositeTransfers)"},
		{"replay without file", map[string]any{"mode": "replay"}, `needs "scheduleFile"`},
		{"missing schedule file", map[string]any{"mode": "replay", "scheduleFile": filepath.Join(lockorder, "missing.json")}, "missing.json"},
		{"does not compile", map[string]any{"program": broken, "test": "TestF"}, "undefined: undefinedThing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := driver{t, session(t, dap.Config{NoDelve: true})}
			c.Timeout = 5 * time.Minute
			c.call("initialize", map[string]any{"adapterID": "interleave"})
			tt.args["type"], tt.args["request"] = "interleave", "launch"
			// A bad configuration is refused in the launch response; a build or a test that
			// fails after the response ends the session with the reason in a notification.
			err := c.Launch(tt.args)
			if err == nil || !strings.Contains(err.Error(), tt.errors) {
				t.Errorf("launch: %v, want an error saying %q", err, tt.errors)
			}
			c.call("disconnect", nil)
		})
	}
}

// TestProtocolErrors sends what a client should not, in well-formed frames: an unknown
// request, malformed JSON, requests out of place. Each gets an error response or an output
// event, and the session goes on. (A malformed frame ends the session: security_test.go.)
func TestProtocolErrors(t *testing.T) {
	c := driver{t, session(t, dap.Config{NoDelve: true})}
	c.call("initialize", map[string]any{"adapterID": "interleave"})
	if _, err := c.Call("frobnicate", nil); err == nil || !strings.Contains(err.Error(), `unsupported request "frobnicate"`) {
		t.Errorf("unknown request: %v", err)
	}
	c.SendRaw([]byte(`{"seq": 99, "type": "request", "command": "next", "arguments": {"threadId": "one"}}`))
	if r, err := c.Response(99); err != nil || r.GetResponse().Success {
		t.Errorf("bad arguments: %v, %v: want an error response", r, err)
	}
	c.SendRaw([]byte(`{this is not json`))
	if e := c.event("output").(*godap.OutputEvent); !strings.Contains(e.Body.Output, "malformed") {
		t.Errorf("malformed message: output %q", e.Body.Output)
	}
	for _, cmd := range []string{"next", "stepBack", "continue", "stackTrace", "evaluate"} {
		if _, err := c.Call(cmd, map[string]any{"threadId": 1, "expression": "x"}); err == nil {
			t.Errorf("%s without a test process: no error", cmd)
		}
	}
	if _, err := c.Call("scopes", map[string]any{"frameId": 7}); err == nil {
		t.Errorf("scopes of an unknown frame: no error")
	}
	if th := c.threads(); len(th) != 1 {
		t.Errorf("threads before launch: %+v", th)
	}
	c.call("disconnect", nil)
}

// TestKilledProcess kills the test process in the middle of a session: the client gets a
// terminated event that says why, and the schedule found so far stays in .interleave. (The
// session also turns off the deadlock exception filter: the stop at the bug is then a plain
// step.)
func TestKilledProcess(t *testing.T) {
	dir := example(t, "lockorder")
	c := driver{t, session(t, dap.Config{})}
	c.Timeout = 5 * time.Minute
	c.call("initialize", map[string]any{"adapterID": "interleave"})
	c.call("launch", launchExplore(dir))
	pid := c.event("process").(*godap.ProcessEvent).Body.SystemProcessId
	c.event("initialized")
	c.call("setExceptionBreakpoints", map[string]any{"filters": []string{"panic", "leak"}})
	if _, err := c.Call("setExceptionBreakpoints", map[string]any{"filters": []string{"typo"}}); err == nil {
		t.Error("an unknown exception filter is accepted")
	}
	c.call("configurationDone", nil)
	st := c.stopped()
	if st.Body.Reason != "step" {
		t.Errorf("stopped %+v with the deadlock filter off, want a step", st.Body)
	}
	if p, err := os.FindProcess(pid); err != nil {
		t.Fatal(err)
	} else if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	c.event("terminated")
	var said string
	for _, e := range c.Events("output") {
		said += e.(*godap.OutputEvent).Body.Output
	}
	if !strings.Contains(said, "the test process ended") || !strings.Contains(said, filepath.Join(dir, ".interleave", "schedules")) {
		t.Errorf("output %q: want why the session ended and where the schedules are", said)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, ".interleave", "schedules", "*.json")); len(files) != 1 {
		t.Errorf("schedules kept: %v", files)
	}
	if _, err := c.Call("next", map[string]any{"threadId": st.Body.ThreadId}); err == nil {
		t.Errorf("next after the process died: no error")
	}
	c.call("disconnect", nil)
}

// TestDeterministic replays the same schedule in two sessions, step by step, and compares
// everything the client sees at every step: threads, stacks, the Scheduler scope and the
// real locals (addresses aside, which differ between processes).
func TestDeterministic(t *testing.T) {
	dir := example(t, "closedchan")
	file := scheduleOf(t, dir, "TestCloseWhileSending")
	replay := func() []string {
		c := driver{t, session(t, dap.Config{})}
		c.Timeout = 5 * time.Minute
		if err := c.Start(launchReplay(file), nil); err != nil {
			t.Fatal(err)
		}
		st := c.stopped()
		var steps []string
		for {
			steps = append(steps, fmt.Sprintf("stopped %s %s\n%s", st.Body.Reason, c.stepOf(st.Body.ThreadId), c.transcript()))
			if strings.Contains(st.Body.Description, "ended") || len(steps) > 100 {
				break
			}
			c.call("next", map[string]any{"threadId": st.Body.ThreadId})
			st = c.stopped()
			if st.Body.Reason == "exception" && strings.HasPrefix(c.stepOf(st.Body.ThreadId), "ended after ") {
				// The panic, at the schedule's last step, whatever its number.
				steps = append(steps, fmt.Sprintf("stopped %s %s\n%s", st.Body.Reason, c.stepOf(st.Body.ThreadId), c.transcript()))
				break
			}
		}
		c.call("disconnect", nil)
		return steps
	}
	a, b := replay(), replay()
	if len(a) < 10 || len(a) != len(b) {
		t.Fatalf("%d and %d stops", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("stop %d differs:\n%s\nthen:\n%s", i, a[i], b[i])
		}
		if !strings.Contains(a[i], "Locals") {
			t.Fatalf("stop %d shows no locals:\n%s", i, a[i])
		}
	}
}

// TestExploreWithoutBug explores a correct test: within its budget, and until it is
// canceled. Either way the session ends with a summary and a terminated event.
func TestExploreWithoutBug(t *testing.T) {
	dir := copyModule(t, filepath.Join("testdata", "pass"))
	for _, tt := range []struct {
		name   string
		args   map[string]any
		cancel bool
		says   string
	}{
		{"budget", map[string]any{"schedules": 200}, false, "no bug in 200 schedules"},
		{"canceled", map[string]any{"schedules": 0, "time": "5m"}, true, "exploration canceled: no bug in"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := driver{t, session(t, dap.Config{NoDelve: true})}
			c.Timeout = 5 * time.Minute
			args := map[string]any{"type": "interleave", "request": "launch", "mode": "explore", "program": dir, "test": "TestCounter", "strategy": "random"}
			for k, v := range tt.args {
				args[k] = v
			}
			if err := c.Start(args, nil); err != nil {
				t.Fatal(err)
			}
			c.event("progressStart") // the build
			c.event("progressEnd")
			id := c.event("progressStart").(*godap.ProgressStartEvent).Body.ProgressId
			if tt.cancel {
				c.event("progressUpdate") // the exploration runs
				c.call("cancel", map[string]any{"progressId": id})
			}
			c.event("progressEnd")
			c.event("terminated")
			var said string
			for _, e := range c.Events("output") {
				said += e.(*godap.OutputEvent).Body.Output
			}
			if !strings.Contains(said, tt.says) {
				t.Errorf("output %q, want %q", said, tt.says)
			}
			if e := c.Events("stopped"); len(e) > 0 {
				t.Errorf("stopped without a bug: %+v", e)
			}
			c.call("disconnect", nil)
		})
	}
}

// TestLockorderWalkthrough follows the walk-through of docs/debugger.md: at the deadlock's last step,
// stepping runs into the deadlock; scheduling the other goroutine by hand instead lets both
// transfers finish, and the new schedule is saved.
func TestLockorderWalkthrough(t *testing.T) {
	dir := example(t, "lockorder")
	c := driver{t, session(t, dap.Config{NoDelve: true})}
	c.Timeout = 5 * time.Minute
	if err := c.Start(launchExplore(dir), nil); err != nil {
		t.Fatal(err)
	}
	st := c.stopped()
	// The transfers' goroutines are G1 and G2 (threads 2 and 3): the schedule's next step is
	// one's lock that closes the cycle; the other's instead takes its second lock.
	next, other := st.Body.ThreadId, 5-st.Body.ThreadId
	if st.Body.Reason != "exception" || (next != 2 && next != 3) {
		t.Fatalf("stopped %+v: want the deadlock, G1 or G2 next", st.Body)
	}
	c.call("next", map[string]any{"threadId": next})
	if end := c.stopped(); end.Body.Reason != "exception" || !strings.Contains(end.Body.Text, "all goroutines are blocked") {
		t.Fatalf("next: stopped %+v, want the deadlock", end.Body)
	}
	c.call("stepBack", map[string]any{"threadId": next})
	c.stopped()
	c.call("next", map[string]any{"threadId": other}) // the other transfer instead
	c.stopped()
	c.Events("output")
	c.call("continue", map[string]any{"threadId": other})
	end := c.stopped()
	if end.Body.Reason != "end" {
		t.Fatalf("continue: stopped %+v, want the end of a passing execution", end.Body)
	}
	saved := false
	for _, e := range c.Events("output") {
		saved = saved || strings.HasPrefix(e.(*godap.OutputEvent).Body.Output, "the new schedule is saved in ")
	}
	if !saved {
		t.Error("the passing schedule was not saved")
	}
	c.call("disconnect", nil)
}
