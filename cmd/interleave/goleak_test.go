package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoleak explores testdata/goleak, whose tests check for leaked goroutines with
// go.uber.org/goleak (defer goleak.VerifyNone(t), goleak.VerifyTestMain): goleak reads every
// goroutine's traceback, which under interleave also shows the explorer, the watchdog and the
// engine's goroutines that Go would not have — each a false "unexpected goroutine" once. The
// tests without a leak pass every schedule; the one that leaks is reported, naming its own
// goroutine and no goroutine of the engine's. Once goleak is in the module cache, interleave runs
// with GOPROXY=off.
func TestGoleak(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores a module that uses goleak")
	}
	src, err := filepath.Abs(filepath.Join("testdata", "goleak"))
	if err != nil {
		t.Fatal(err)
	}
	dl := exec.Command("go", "mod", "download", "go.uber.org/goleak")
	dl.Dir = src
	dl.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := dl.CombinedOutput(); err != nil {
		t.Skipf("go.uber.org/goleak is neither in the module cache nor reachable through the module proxy (go mod download: %v)\n%s", err, out)
	}
	dir := t.TempDir()
	for _, name := range []string{"go.mod", "go.sum", "leak_test.go"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"GOWORK=off", "GOPROXY=off"}

	code, out, errOut := interleaveIn(t, dir, env, "test", "-schedules", "1000", "-run", "^(TestWorkers|TestFinishesSoon|TestTimers)$", ".")
	if code != 0 || len(summaryLines(out)) != 3 {
		t.Fatalf("the tests without a leak: exit %d, want 0 and three tests passing\n%s\n%s", code, out, errOut)
	}

	code, out, errOut = interleaveIn(t, dir, env, "test", "-schedules", "100", "-minimize", "0", "-run", "^TestLeak$", ".")
	if code != 1 || !strings.Contains(out, "found unexpected goroutines") || !strings.Contains(out, "TestLeak") {
		t.Fatalf("the leak: exit %d, want 1 with goleak's report\n%s\n%s", code, out, errOut)
	}
	report := out[strings.Index(out, "found unexpected goroutines"):]
	report = report[:strings.Index(report, "]")]
	if n := strings.Count(report, "Goroutine "); n != 1 {
		t.Errorf("goleak reports %d goroutines, want the leaked one only:\n%s", n, report)
	}
	for _, engineOwn := range []string{"interleave/engine.Explore", "interleave/engine.watchdog", "os/signal", "interleave/engine.(*Exec).wait"} {
		if strings.Contains(report, engineOwn) {
			t.Errorf("goleak's report shows %s:\n%s", engineOwn, report)
		}
	}
}
