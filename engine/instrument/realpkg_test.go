package instrument_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// realPkgs are the real packages whose own tests TestRealPackages runs instrumented: the
// tests of golang.org/x/sync at the version testdata/realpkgs/go.mod requires, fetched through
// the module proxy. Each lists the tests run; the tests left out cannot run under a controlled
// scheduler, for the reason given.
var realPkgs = []struct {
	path  string
	tests []string
}{
	{
		path:  "golang.org/x/sync/errgroup",
		tests: []string{"TestZeroGroup", "TestWithContext", "TestTryGo", "TestGoLimit", "TestCancelCause"},
	},
	{
		path: "golang.org/x/sync/semaphore",
		tests: []string{"TestWeightedPanic", "TestWeightedNegativeSizePanic", "TestWeightedZeroSize",
			"TestWeightedNegativeWeightPanic", "TestWeightedTryAcquire", "TestWeightedAcquire",
			"TestWeightedDoesntBlockIfTooBig", "TestLargeAcquireDoesntStarve", "TestAllocCancelDoesntStarve",
			// Its goroutine busy-waits without yielding (for sem.TryAcquire(1) {
			// sem.Release(1) }) until the test goroutine blocks in Acquire: it ends only
			// because the engine is fair (engine/fair.go), as Go's scheduler is.
			"TestWeightedAcquireCanceled",
			// 10,000 acquire/sleep/release rounds whose sleeps last rand.Int63n(1ms): the
			// values come from the execution's own source (engine/rand.go), so the test is a
			// function of its schedule, and the portfolio's idb member can replay prefixes.
			"TestWeighted"},
	},
	{
		path: "golang.org/x/sync/singleflight",
		tests: []string{"TestDo", "TestDoErr", "TestDoDupSuppress", "TestForget", "TestDoChan", "TestPanicDo", "TestGoexitDo",
			"TestPanicErrorUnwrap"}, // parallel subtests (engine/subtest.go)
		// Left out: TestPanicDoChan and TestPanicDoSharedByDoChan run the test binary again in a subprocess and expect it to
		// crash from a "go panic(e)" in singleflight.go: the child process is outside the
		// controlled execution (it inherits the INTERLEAVE_* settings and runs its own
		// exploration).
	},
}

// TestRealPackages runs the tests of golang.org/x/sync/{errgroup,semaphore,singleflight}
// instrumented (interleave test -instrument golang.org/x/sync) with the default strategy, and
// checks that every one passes all its schedules: code that is not ours builds, runs and
// reports no false bug. Once the module is in the module cache, interleave runs with
// GOPROXY=off: it needs no network. INTERLEAVE_REALPKG_SCHEDULES sets the schedules per test (default
// 1000: about 45s on two cores, most of it errgroup's TestGoLimit, 1,025 goroutines a schedule).
func TestRealPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores three real packages; skipped in -short mode")
	}
	schedules := 1000
	if v := os.Getenv("INTERLEAVE_REALPKG_SCHEDULES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("INTERLEAVE_REALPKG_SCHEDULES=%q: want a positive number", v)
		}
		schedules = n
	}
	modDir, err := filepath.Abs(filepath.Join("testdata", "realpkgs"))
	if err != nil {
		t.Fatal(err)
	}
	// golang.org/x/sync comes from the module cache or the module proxy: without either,
	// there is nothing to test.
	dl := exec.Command("go", "mod", "download", "golang.org/x/sync")
	dl.Dir = modDir
	dl.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := dl.CombinedOutput(); err != nil {
		t.Skipf("golang.org/x/sync is neither in the module cache nor reachable through the module proxy (go mod download: %v)\n%s", err, out)
	}

	bin := buildInterleave(t)

	for _, pkg := range realPkgs {
		t.Run(filepath.Base(pkg.path), func(t *testing.T) {
			args := []string{"test", "-json", "-instrument", "golang.org/x/sync",
				"-schedules", strconv.Itoa(schedules),
				"-run", "^(" + strings.Join(pkg.tests, "|") + ")$"}
			args = append(args, pkg.path)
			cmd := exec.Command(bin, args...)
			cmd.Dir = modDir
			cmd.Env = append(os.Environ(), "GOWORK=off", "GOPROXY=off")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatalf("run interleave: %v", err)
			}

			type event struct {
				Action    string
				Test      string
				Output    string
				Elapsed   float64
				Schedules int
				Buggy     int
			}
			passed := map[string]event{}
			var report strings.Builder
			sc := bufio.NewScanner(&stdout)
			sc.Buffer(make([]byte, 1<<20), 64<<20)
			for sc.Scan() {
				var e event
				if json.Unmarshal(sc.Bytes(), &e) != nil {
					continue
				}
				switch e.Action {
				case "output":
					report.WriteString(e.Output)
				case "pass":
					passed[e.Test] = e
				}
			}
			if code != 0 {
				t.Fatalf("interleave %s: exit status %d, want 0 (no bug)\n%s%s", strings.Join(args, " "), code, report.String(), stderr.String())
			}
			var total float64
			var ran int
			var names []string
			for _, name := range pkg.tests {
				e, ok := passed[name]
				if !ok {
					t.Errorf("%s: no pass event for %s\n%s", pkg.path, name, report.String())
					continue
				}
				// Fewer schedules than asked for: the strategy exhausted the test's
				// interleavings.
				if e.Schedules <= 0 || e.Schedules > schedules || e.Buggy != 0 {
					t.Errorf("%s: %s ran %d schedules (%d buggy), want 1 to %d and none buggy", pkg.path, name, e.Schedules, e.Buggy, schedules)
				}
				if e.Elapsed > 0 {
					t.Logf("%s: %d schedules in %.3fs (%.0f schedules/s)", name, e.Schedules, e.Elapsed, float64(e.Schedules)/e.Elapsed)
				}
				total += e.Elapsed
				ran += e.Schedules
				names = append(names, name)
			}
			if len(passed) != len(pkg.tests) {
				var got []string
				for name := range passed {
					got = append(got, name)
				}
				sort.Strings(got)
				t.Errorf("%s: passed tests %v, want exactly %v", pkg.path, got, pkg.tests)
			}
			if total > 0 {
				t.Logf("%s: %d tests, %d schedules (at most %d each) in %.2fs of exploration (%.0f schedules/s), %.1fs with the build",
					pkg.path, len(names), ran, schedules, total, float64(ran)/total, time.Since(start).Seconds())
			}
		})
	}
}

// buildInterleave builds the interleave command of this module into a temporary directory
// and returns the executable's path.
func buildInterleave(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "interleave")
	build := exec.Command("go", "build", "-o", bin, "./cmd/interleave")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/interleave: %v\n%s", err, out)
	}
	return bin
}
