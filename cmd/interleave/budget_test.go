package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/report"
	"github.com/interleave-dev/interleave/engine/explore"
)

// stressModule's tests are stress-style: 8 goroutines × 20,000 locked increments, about
// 320,000 scheduling steps an execution, past the step bound's start; TestStressBug's
// goroutines call Done before their last increment, a bug only its final check sees.
var stressModule = map[string]string{
	"m_test.go": `package m

import (
	"sync"
	"testing"
)

func stress(t *testing.T, early bool) {
	const workers, n = 8, 20000
	var mu sync.Mutex
	var wg sync.WaitGroup
	counter := 0
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			if !early {
				defer wg.Done()
			}
			for i := 0; i < n; i++ {
				if early && i == n-1 {
					wg.Done()
				}
				mu.Lock()
				counter++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if counter != workers*n {
		t.Fatalf("counter = %d, want %d", counter, workers*n)
	}
}

func TestStress(t *testing.T)    { stress(t, false) }
func TestStressBug(t *testing.T) { stress(t, true) }
`,
}

// TestDefaultBudget: interleave test with no budget flag on a package of stress tests ends by
// itself: the correct test stops at its time budget (the reason is checked, not a time), every
// execution run to its end (none cut at the step bound, no notice), and its line says so; the
// buggy one has its bug found at its final check. -schedules N given runs exactly N schedules,
// without a time budget.
func TestDefaultBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := writeModule(t, stressModule)
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-p", "1", "-minimize", "0", ".")
	t.Logf("stdout:\n%s\nstderr:\n%s", out, errOut)
	if code != 1 {
		t.Errorf("exit %d, want 1 (TestStressBug's bug)", code)
	}
	for _, want := range []string{
		"ok  \texample.com/m\tTestStress\tno bug in ",
		"; stopped: time budget (" + explore.DefaultTime.String() + ")",
		"FAIL\texample.com/m\tTestStressBug\tfail bug, ",
		"counter = ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout does not say %q", want)
		}
	}
	if strings.Contains(out+errOut, "step bound") || strings.Contains(out, "CUT") {
		t.Errorf("an execution was cut at the step bound")
	}
	runs, _ := filepath.Glob(filepath.Join(dir, ".interleave", "runs", "*.json"))
	if len(runs) != 1 {
		t.Fatalf("run summaries %v, want one", runs)
	}
	s, err := report.LoadSummary(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range s.Tests {
		e := o.Result
		if e == nil {
			t.Fatalf("%s: no result in the run summary", o.Test)
		}
		switch o.Test {
		case "TestStress":
			if o.Status != report.StatusPass || e.Stopped != "time" || e.TimeBudget != explore.DefaultTime.Seconds() || e.Cut != 0 || e.Schedules == 0 {
				t.Errorf("TestStress: %s, stopped %q, budget %vs, %d of %d schedules cut: want a pass stopped by the default time budget, none cut",
					o.Status, e.Stopped, e.TimeBudget, e.Cut, e.Schedules)
			}
		case "TestStressBug":
			if o.Status != report.StatusBug || e.Bug == nil || e.Bug.Kind != "fail" || e.Cut != 0 {
				t.Errorf("TestStressBug: %s, bug %+v, %d cut: want its final check's failure, none cut", o.Status, e.Bug, e.Cut)
			}
		}
	}

	code, out, errOut = interleaveIn(t, dir, nil, "test", "-json", "-p", "1", "-schedules", "3", "-run", "^TestStress$", ".")
	if code != 0 {
		t.Errorf("-schedules 3: exit %d, want 0\n%s", code, errOut)
	}
	e := finalEvent(t, out, "TestStress")
	if e.Schedules == nil || *e.Schedules != 3 || e.Stopped != "schedules" || e.TimeBudget != 0 || e.Cut != 0 {
		t.Errorf("-schedules 3: final event %+v: want exactly 3 schedules, stopped by them, no time budget, none cut", e)
	}
}
