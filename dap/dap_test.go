package dap_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
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

func TestExploreStopsAtDeadlock(t *testing.T) {
	dir := example(t, "lockorder")
	c := driver{t, session(t, dap.Config{NoDelve: true, Log: os.Stderr})}
	c.Timeout = 5 * time.Minute
	if err := c.Start(map[string]any{"type": "interleave", "request": "launch", "mode": "explore", "program": dir, "test": "TestOppositeTransfers", "strategy": "pct", "schedules": 10000}, nil); err != nil {
		t.Fatal(err)
	}
	st := c.stopped()
	if st.Body.Reason != "exception" || !strings.Contains(st.Body.Text, "all goroutines are blocked") {
		t.Errorf("stopped %+v, want the deadlock", st.Body)
	}
	th := c.call("threads", nil).(*godap.ThreadsResponse)
	for _, x := range th.Body.Threads {
		t.Logf("thread %d %s", x.Id, x.Name)
		tr := c.call("stackTrace", map[string]any{"threadId": x.Id}).(*godap.StackTraceResponse)
		for _, f := range tr.Body.StackFrames {
			t.Logf("   %s %s:%d:%d", f.Name, f.Source.Path, f.Line, f.Column)
			if !strings.HasPrefix(f.Source.Path, dir) {
				t.Errorf("frame %s in %s, not in the example's files", f.Name, f.Source.Path)
			}
		}
	}
	for _, e := range c.Events("output") {
		t.Logf("output: %s", e.(*godap.OutputEvent).Body.Output)
	}
	c.call("disconnect", nil)
}
