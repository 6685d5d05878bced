package lsp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/interleave-dev/interleave/lsp/lsptest"
)

// progressKinds returns the kinds of the work-done progress values received, in order.
func progressKinds(r *lsptest.Records) []string {
	var out []string
	for _, p := range r.Progress() {
		b, _ := json.Marshal(p.Value)
		var v struct{ Kind, Message string }
		json.Unmarshal(b, &v)
		out = append(out, v.Kind+":"+v.Message)
	}
	return out
}

// TestRunTest: interleave.runTest explores a test in the background with work-done progress,
// publishes its findings and returns the final event; a second run is canceled from the
// progress notification's Cancel.
func TestRunTest(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "../testdata/examples/counter", dir)
	c := lsptest.Start(t, exe, dir)
	c.Initialize(lsptest.VSCodeInitialize([]string{dir}, nil))
	var final struct {
		Action    string
		Test      string
		Schedules int
		Bug       *struct{ Kind, Schedule string }
	}
	err := c.Call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command: "interleave.runTest", Arguments: []any{dir, "TestConcurrentWithdraw", map[string]any{"schedules": 1000}},
	}, &final)
	if err != nil {
		t.Fatalf("interleave.runTest: %v", err)
	}
	if final.Action != "fail" || final.Test != "TestConcurrentWithdraw" || final.Bug == nil || final.Bug.Kind != "fail" {
		t.Fatalf("final event %+v, want the test's failure", final)
	}
	account := filepath.Join(dir, "account_test.go")
	c.Await("the bug's diagnostic", func(r *lsptest.Records) bool { return len(r.Diagnostics(account)) == 1 })
	c.Snapshot(func(r *lsptest.Records) {
		kinds := progressKinds(r)
		if len(kinds) < 2 || !strings.HasPrefix(kinds[0], "begin:") || !strings.HasPrefix(kinds[len(kinds)-1], "end:fail: ") {
			t.Errorf("progress %q, want begin ... end with the result", kinds)
		}
		created := false
		for _, m := range r.Requests() {
			created = created || m == protocol.MethodWorkDoneProgressCreate
		}
		if !created {
			t.Errorf("the server did not create a progress token (requests %v)", r.Requests())
		}
	})

	// A long run, canceled: the reply comes, and the progress ends.
	type reply struct {
		res json.RawMessage
		err error
	}
	done := make(chan reply, 1)
	go func() {
		var res json.RawMessage
		err := c.Call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
			Command:   "interleave.runTest",
			Arguments: []any{dir, "TestConcurrentWithdraw", map[string]any{"schedules": 100000000, "strategy": "random", "keep-going": true}},
		}, &res)
		done <- reply{res, err}
	}()
	var token protocol.ProgressToken
	c.Await("a progress report of the second run", func(r *lsptest.Records) bool {
		ps := r.Progress()
		kinds := progressKinds(r)
		for i := len(ps) - 1; i >= 0 && !strings.HasPrefix(kinds[i], "end:"); i-- {
			if strings.HasPrefix(kinds[i], "report:") {
				token = ps[i].Token
				return true
			}
		}
		return false
	})
	c.Snapshot(func(r *lsptest.Records) {
		kinds := progressKinds(r)
		if k := kinds[len(kinds)-1]; !regexp.MustCompile(`^report:\d+ schedules, \d+/s, \d+ distinct interleavings$`).MatchString(k) {
			t.Errorf("progress report %q, want schedules, rate and interleavings", k)
		}
	})
	c.Notify(protocol.MethodWorkDoneProgressCancel, &protocol.WorkDoneProgressCancelParams{Token: token})
	select {
	case r := <-done:
		t.Logf("canceled run: %s %v", r.res, r.err)
	case <-time.After(lsptest.Timeout):
		t.Fatal("the canceled run did not reply")
	}
	c.Await("the canceled run's progress end", func(r *lsptest.Records) bool {
		kinds := progressKinds(r)
		return kinds[len(kinds)-1] == "end:canceled"
	})
	c.Shutdown()
}

// processesIn returns the ids of the processes whose working directory is dir.
func processesIn(dir string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestClientDiesDuringRun: a client that dies while interleave.runTest runs leaves no
// process behind: the server stops the run before it exits.
func TestClientDiesDuringRun(t *testing.T) {
	if _, err := os.Stat("/proc/self/cwd"); err != nil {
		t.Skip("no /proc")
	}
	dir := t.TempDir()
	copyTree(t, "../testdata/examples/counter", dir)
	c := lsptest.Start(t, exe, t.TempDir())
	c.Initialize(lsptest.VSCodeInitialize([]string{dir}, nil))
	go c.Call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command:   "interleave.runTest",
		Arguments: []any{dir, "TestConcurrentWithdraw", map[string]any{"schedules": 100000000, "strategy": "random", "keep-going": true}},
	}, nil)
	c.Await("a progress report", func(r *lsptest.Records) bool {
		for _, k := range progressKinds(r) {
			if strings.HasPrefix(k, "report:") {
				return true
			}
		}
		return false
	})
	if ps := processesIn(dir); len(ps) == 0 {
		t.Fatal("no process runs in the package's directory during the run")
	}
	c.CloseStdin()
	if err := c.Wait(); err == nil {
		t.Error("the server exited with status 0 without shutdown")
	}
	if ps := processesIn(dir); len(ps) > 0 {
		t.Errorf("processes %v still run in %s after the server exited", ps, dir)
	}
}
