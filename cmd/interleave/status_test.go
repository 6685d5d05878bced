package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/report"
)

// statusModule's tests are each reported for what really happened: TestLong's executions
// are all cut at the step bound of -max-steps 300, TestBlocked blocks on a semaphore of a
// module that is not instrumented (its exploration is abandoned), TestSequential has one
// goroutine and no choice, TestSequentialRand draws math/rand values.
var statusModule = map[string]string{
	"sem/go.mod": "module example.com/sem\n\ngo 1.22\n",
	"sem/sem.go": `package sem

// Sem is a counting semaphore.
type Sem struct{ slots chan struct{} }

func New(n int) *Sem { return &Sem{slots: make(chan struct{}, n)} }

func (s *Sem) Acquire() { s.slots <- struct{}{} }
`,
	"m_test.go": `package m

import (
	"math/rand"
	"sync"
	"testing"

	"example.com/sem"
)

func TestLong(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 400; j++ {
				mu.Lock()
				n++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if n != 800 {
		t.Fatalf("n = %d", n)
	}
}

func TestBlocked(t *testing.T) {
	s := sem.New(1)
	s.Acquire()
	s.Acquire()
}

func TestSequential(t *testing.T) {
	m := map[int]int{}
	for i := 0; i < 10; i++ {
		m[i] = i * i
	}
	if m[3] != 9 {
		t.Fatal("wrong")
	}
}

func TestSequentialRand(t *testing.T) {
	if rand.Intn(100) < 0 {
		t.Fatal("negative")
	}
}
`,
}

// TestHonestStatus: a test cut at the step bound is CUT (not ok) with the share of its
// schedules cut and what to do, an abandoned test has a SKIP line with the reason (the module
// to instrument), both counted in the last line and not failures (exit 0); a test with one
// goroutine and no choice runs once, one that draws math/rand values a hundred times more
// than its one interleaving, unless -schedules is given. The same in -json (Status, Reason,
// Action skip), JUnit (skipped with the reason), SARIF (warning notifications) and the run
// summary.
func TestHonestStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := writeModule(t, statusModule)
	mod := "module example.com/m\n\ngo 1.22\n\nrequire example.com/sem v0.0.0\n\nreplace example.com/sem => ./sem\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	reports := t.TempDir()
	junitPath, sarifPath := filepath.Join(reports, "r.xml"), filepath.Join(reports, "r.sarif")
	args := []string{"test", "-p", "1", "-max-steps", "300", "-minimize", "0", "-junit", junitPath, "-sarif", sarifPath, "."}

	code, out, errOut := interleaveIn(t, dir, nil, args...)
	t.Logf("interleave %s\nstdout:\n%s", strings.Join(args, " "), out)
	if code != 0 {
		t.Errorf("exit %d, want 0 (cut and abandoned are not failures)\nstderr:\n%s", code, errOut)
	}
	for _, want := range []string{
		"CUT \texample.com/m\tTestLong\tno bug in ",
		"(100%) cut at the step bound of 300 steps while their goroutines still changed state: their ends, and the test's checks after them, never ran; raise -max-steps",
		"SKIP\texample.com/m\tTestBlocked\tabandoned after 1 schedule(s), blocked outside the engine: ",
		"module example.com/sem is not instrumented, and interleave test -instrument example.com/sem would control it",
		"ok  \texample.com/m\tTestSequential\tno bug in 1 schedules, 1 distinct interleavings (portfolio, ",
		"its only schedule: one goroutine and no scheduling choice, explored once",
		"ok  \texample.com/m\tTestSequentialRand\tno bug in 101 schedules, 1 distinct interleavings (portfolio, ",
		"one goroutine and no scheduling choice; stopped after 101 schedules, its math/rand values drawn anew in each: nothing new in the last 100",
		"SKIP\t1 test(s) cut at the step bound, 1 abandoned, blocked outside the engine: not explored as asked",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout does not say %q", want)
		}
	}
	if strings.Contains(out, "ok  \texample.com/m\tTestLong") || strings.Contains(out, "whole schedule space") {
		t.Errorf("TestLong said ok, or a claim of the whole schedule space")
	}

	// JUnit: the cut and the abandoned test are skipped, with why; nothing failed.
	b, err := os.ReadFile(junitPath)
	if err != nil {
		t.Fatal(err)
	}
	var r report.JUnitSuites
	if err := xml.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Tests != 4 || r.Skipped != 2 || r.Failures != 0 || r.Errors != 0 {
		t.Errorf("JUnit: %d tests, %d skipped, %d failures, %d errors; want 4, 2 skipped\n%s", r.Tests, r.Skipped, r.Failures, r.Errors, b)
	}
	for _, c := range r.Suites[0].Cases {
		want := map[string]string{"TestLong": "cut: ", "TestBlocked": "abandoned: "}[c.Name]
		if (want == "") != (c.Skipped == nil) || c.Skipped != nil && !strings.HasPrefix(c.Skipped.Message, want) {
			t.Errorf("JUnit case %s: skipped %+v, want %q", c.Name, c.Skipped, want)
		}
	}

	// SARIF: a successful run with a warning for each test not explored as asked.
	l := readSARIF(t, sarifPath)
	inv := l.Runs[0].Invocations[0]
	if !inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 2 ||
		!strings.HasPrefix(inv.ToolExecutionNotifications[0].Message.Text, "TestLong (example.com/m) cut: ") ||
		!strings.HasPrefix(inv.ToolExecutionNotifications[1].Message.Text, "TestBlocked (example.com/m) abandoned: ") {
		t.Errorf("SARIF invocation %+v: want two warnings, TestLong cut and TestBlocked abandoned", inv)
	}

	// The run summary, which the editor's Testing view reads.
	runs, _ := filepath.Glob(filepath.Join(dir, ".interleave", "runs", "*.json"))
	if len(runs) != 1 {
		t.Fatalf("run summaries %v, want one", runs)
	}
	s, err := report.LoadSummary(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	statuses := map[string]string{}
	for _, o := range s.Tests {
		statuses[o.Test] = o.Status
		if (o.Status == report.StatusCut || o.Status == report.StatusAbandoned) && o.Reason == "" {
			t.Errorf("run summary: %s %s without a reason", o.Test, o.Status)
		}
	}
	if want := map[string]string{"TestLong": "cut", "TestBlocked": "abandoned", "TestSequential": "pass", "TestSequentialRand": "pass"}; !mapsEqual(statuses, want) {
		t.Errorf("run summary statuses %v, want %v", statuses, want)
	}

	// -json: the same, on the final events.
	jargs := append([]string{"test", "-json"}, args[1:]...)
	code, out, errOut = interleaveIn(t, dir, nil, jargs...)
	var finals []string
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, `"Action":"pass"`) || strings.Contains(line, `"Action":"skip"`) || strings.Contains(line, `"Action":"fail"`) ||
			strings.Contains(line, `"Action":"output"`) && !strings.Contains(line, `"Test"`) {
			finals = append(finals, line)
		}
	}
	t.Logf("interleave %s\nfinal events:\n%s", strings.Join(jargs, " "), strings.Join(finals, "\n"))
	if code != 0 {
		t.Errorf("-json: exit %d, want 0\nstderr:\n%s", code, errOut)
	}
	for _, tc := range []struct {
		test, action, status, stopped string
		schedules                     int
	}{
		{"TestLong", "skip", "cut", "", 0},
		{"TestBlocked", "skip", "abandoned", "limitation", 1},
		{"TestSequential", "pass", "pass", "plateau", 1},
		{"TestSequentialRand", "pass", "pass", "plateau", 101},
	} {
		e := finalEvent(t, out, tc.test)
		if e.Action != tc.action || e.Status != tc.status || tc.stopped != "" && e.Stopped != tc.stopped || tc.schedules != 0 && (e.Schedules == nil || *e.Schedules != tc.schedules) {
			t.Errorf("%s: final event %+v, want %s, status %s, stopped %q, %d schedules", tc.test, e, tc.action, tc.status, tc.stopped, tc.schedules)
		}
		if tc.status == "cut" && (e.Cut == 0 || e.Schedules == nil || e.Cut != *e.Schedules || !strings.Contains(e.Reason, "raise -max-steps")) {
			t.Errorf("%s: Cut %d, Reason %q: want every schedule cut, and what to do", tc.test, e.Cut, e.Reason)
		}
		if tc.status == "abandoned" && !strings.Contains(e.Reason, "-instrument example.com/sem") {
			t.Errorf("%s: Reason %q: want the module to instrument", tc.test, e.Reason)
		}
	}
	if !strings.Contains(out, `"Output":"interleave: 1 test(s) cut at the step bound, 1 abandoned, blocked outside the engine`) {
		t.Errorf("-json: no output event counts the tests cut and abandoned")
	}

	// -schedules given: exactly that many, past the plateau (TestSequential, without math/rand
	// values, is a whole schedule space of one schedule, which the portfolio's IDB exhausts).
	code, out, _ = interleaveIn(t, dir, nil, "test", "-json", "-p", "1", "-schedules", "500", "-run", "^TestSequentialRand$", ".")
	if e := finalEvent(t, out, "TestSequentialRand"); code != 0 || e.Schedules == nil || *e.Schedules != 500 || e.Stopped != "schedules" {
		t.Errorf("-schedules 500: exit %d, final event %+v; want 500 schedules", code, e)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
