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

	"github.com/interleave-dev/interleave/engine/store"
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

// TestRunTestOptionsRefused: interleave.runTest takes only the options of package runopts,
// each checked: a key that would run a program (toolexec, exec) or write a file outside the
// module's results store (junit, sarif) is refused with an error naming it, and nothing runs.
func TestRunTestOptionsRefused(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "../testdata/examples/counter", dir)
	marker := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "x.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\nexec \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "report.xml")
	c := lsptest.Start(t, exe, dir)
	c.Initialize(lsptest.VSCodeInitialize([]string{dir}, nil))
	for _, tc := range []struct {
		opts map[string]any
		want string
	}{
		{map[string]any{"toolexec": script}, `option "toolexec" is not accepted (accepted: fair-steps, junit, keep-going, max-steps,`},
		{map[string]any{"exec": script, "schedules": 10}, `option "exec" is not accepted`},
		{map[string]any{"junit": outside}, `option junit: "` + outside + `": `},
		{map[string]any{"sarif": "../elsewhere.sarif"}, `is outside the results store`},
		{map[string]any{"junit": ".interleave/../report.xml"}, `is outside the results store`},
		{map[string]any{"tags": "x", "strategy": "-toolexec=" + script}, `option strategy: "-toolexec=`},
		{map[string]any{"schedules": -1}, `option schedules: -1: want a number of schedules ≥ 0`},
		{map[string]any{"run": "TestOther"}, `option run: set by interleave.runTest from its test argument`},
	} {
		err := c.Call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
			Command: "interleave.runTest", Arguments: []any{dir, "TestConcurrentWithdraw", tc.opts},
		}, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("options %v: %v, want an error saying %q", tc.opts, err, tc.want)
		}
	}
	if err := c.Call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command: "interleave.runTest", Arguments: []any{dir, "TestConcurrentWithdraw", "-toolexec=" + script},
	}, nil); err == nil || !strings.Contains(err.Error(), "want an object") {
		t.Errorf("options that are not an object: %v", err)
	}
	c.Snapshot(func(r *lsptest.Records) {
		if kinds := progressKinds(r); len(kinds) > 0 {
			t.Errorf("a refused run reported progress %q", kinds)
		}
	})
	c.Shutdown()
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the toolexec program ran (%v)", err)
	}
	if _, err := os.Stat(outside); !os.IsNotExist(err) {
		t.Errorf("a report was written outside the store (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, store.Dir)); !os.IsNotExist(err) {
		t.Errorf("a refused run wrote the store (%v)", err)
	}
}

// TestRunTestJUnitInStore: a report inside the module's results store is written.
func TestRunTestJUnitInStore(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "../testdata/examples/counter", dir)
	c := lsptest.Start(t, exe, dir)
	c.Initialize(lsptest.VSCodeInitialize([]string{dir}, nil))
	var final struct{ Action, Test string }
	err := c.Call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command:   "interleave.runTest",
		Arguments: []any{dir, "TestConcurrentWithdraw", map[string]any{"schedules": 200, "strategy": "pct", "d": 2, "junit": ".interleave/report.xml"}},
	}, &final)
	if err != nil {
		t.Fatalf("interleave.runTest: %v", err)
	}
	if final.Test != "TestConcurrentWithdraw" {
		t.Errorf("final event %+v", final)
	}
	data, err := os.ReadFile(filepath.Join(dir, store.Dir, "report.xml"))
	if err != nil || !strings.Contains(string(data), "TestConcurrentWithdraw") {
		t.Errorf("the JUnit report in the store: %v\n%s", err, data)
	}
	c.Shutdown()
}
