package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/report"
)

const junitTests = racyTest + `
func TestRacyFlag(t *testing.T) {
	var flag bool
	done := make(chan struct{})
	go func() {
		flag = true
		close(done)
	}()
	_ = flag
	<-done
}

func TestSkipped(t *testing.T) {
	t.Skip("not today")
}

func TestCorrect(t *testing.T) {
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			n++
			mu.Unlock()
		}()
	}
	wg.Wait()
}
`

// TestJUnit runs interleave test -junit on a package with a bug, a race, a skipped test and a
// correct one, and reads the report back as a CI system would.
func TestJUnit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := writeModule(t, map[string]string{"m_test.go": junitTests})
	reportPath := filepath.Join(t.TempDir(), "report.xml")
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-junit", reportPath, "-origin", "editor-7", "-schedules", "500", "-minimize", "0", ".")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a bug)\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	b, err := os.ReadFile(reportPath)
	if err != nil {
		t.Fatal(err)
	}
	var r report.JUnitSuites
	if err := xml.Unmarshal(b, &r); err != nil {
		t.Fatalf("the report is not XML: %v\n%s", err, b)
	}
	if r.Tests != 4 || r.Failures != 1 || r.Skipped != 1 || r.Errors != 0 || len(r.Suites) != 1 || r.Suites[0].Name != "example.com/m" {
		t.Fatalf("report %+v: want one suite example.com/m with 4 tests, 1 failure, 1 skipped", r)
	}
	cases := map[string]report.JUnitCase{}
	for _, c := range r.Suites[0].Cases {
		cases[c.Name] = c
		if c.Classname != "example.com/m" {
			t.Errorf("%s: classname %q", c.Name, c.Classname)
		}
	}
	if f := cases["TestLostUpdate"].Failure; f == nil || f.Type != "fail" || !strings.Contains(f.Message, "m_test.go:") ||
		!strings.Contains(f.Text, "replay:   interleave replay ") || !strings.Contains(f.Text, "n = 1, want 2") {
		t.Errorf("TestLostUpdate's failure: %+v", f)
	}
	if c := cases["TestRacyFlag"]; c.Failure != nil || !strings.Contains(c.SystemOut, "1 data race(s), findings not failures") {
		t.Errorf("TestRacyFlag: %+v: want a pass with its race in system-out", c)
	}
	if c := cases["TestSkipped"]; c.Skipped == nil {
		t.Errorf("TestSkipped: %+v", c)
	}
	if c := cases["TestCorrect"]; c.Failure != nil || c.Skipped != nil || !strings.HasPrefix(c.SystemOut, "no bug in ") {
		t.Errorf("TestCorrect: %+v", c)
	}
	if p := r.Suites[0].Properties; len(p) < 4 || p[0].Name != "strategy" || p[0].Value != "portfolio" {
		t.Errorf("properties %+v", p)
	}

	// The run summary an editor watches for: written whole (no temporary file left beside
	// it), with the origin that tells the editor's own runs from a terminal's.
	runs, err := os.ReadDir(filepath.Join(dir, ".interleave", "runs"))
	if err != nil || len(runs) != 1 || !strings.HasSuffix(runs[0].Name(), ".json") {
		t.Fatalf("the runs directory: %v %v, want one summary", runs, err)
	}
	b, err = os.ReadFile(filepath.Join(dir, ".interleave", "runs", runs[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	var summary struct {
		Version int
		Origin  string
		Tests   []report.Outcome
	}
	if err := json.Unmarshal(b, &summary); err != nil || summary.Version != 1 || summary.Origin != "editor-7" || len(summary.Tests) != 4 {
		t.Errorf("run summary (%v): version %d, origin %q, %d tests; want 1, editor-7, 4", err, summary.Version, summary.Origin, len(summary.Tests))
	}

	// A report that cannot be written: said, with its path; the results are printed all the
	// same, and the run fails even without a bug.
	missing := filepath.Join(t.TempDir(), "no", "such", "dir", "report.xml")
	code, out, errOut = interleaveIn(t, dir, nil, "test", "-junit", missing, "-run", "TestCorrect", "-schedules", "50", ".")
	if code == 0 || !strings.Contains(errOut, "-junit "+missing) || !strings.Contains(out, "TestCorrect") {
		t.Errorf("unwritable report: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
