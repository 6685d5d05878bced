package instrument_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// realMod is a published module whose own tests TestRealModules runs under interleave test.
type realMod struct {
	module string   // instrumented (-instrument), besides the always-instrumented ones
	pkgs   []string // the packages whose tests run
	run    string   // -run, when not every test runs
	skip   string   // -skip: tests left out, for the reason given where it is set
	// real lists the tests that report a bug that is real — in the library or in its tests —
	// with the verdict: a budget may or may not reach it, so it is allowed, not required.
	real map[string]string
	// knownFalse lists the tests whose report is the tool's fault, with the cause: allowed,
	// so that the suite runs, and named in the log.
	knownFalse map[string]string
	// notices lists the tests ("package Test") that must run and pass with a notice
	// containing the text given: a difference the tool knows is not the program's, which it
	// must not report as a bug.
	notices map[string]string
}

// realMods are twelve popular concurrency-heavy modules, at the versions testdata/realmods/go.mod
// pins (their go lines range from none, 1.12 and 1.18 to 1.26), among them an RPC framework whose
// test helper passes the test's *testing.T through reflection. Left out: go.uber.org/ratelimit
// (its tests drive benbjohnson/clock's mock with real sleeps; instrumented with -instrument
// github.com/benbjohnson/clock they report deadlocks whose verdict is not established yet) and
// github.com/cenkalti/backoff/v4 (go test itself refuses to build it: vet finds an Example
// that names an unknown identifier; interleave test reports the same error).
var realMods = []realMod{
	{
		module: "github.com/alitto/pond/v2",
		pkgs:   []string{"github.com/alitto/pond/v2", "github.com/alitto/pond/v2/internal/future", "github.com/alitto/pond/v2/internal/linkedbuffer"},
		// Each schedule of these runs into the step bound (a notice: they submit thousands
		// of tasks); they pass, but take most of the package's minutes.
		skip: "^(TestPoolWithContextCanceled|TestPoolMetrics|TestPoolSubmitWhileStoppingHasNoRace|TestResultPoolMetrics|TestSubpoolStopAndWait)$",
		real: map[string]string{
			"TestTaskGroupWaitShouldNotDeadlockWhenPoolContextCanceledWithQueuedTasks": "test race: asserts RunningWorkers() == 0 right after group.Wait returns, while the worker may still be finishing",
			"TestPoolWithQueueSizeZero":           "test race: asserts CompletedTasks() right after task.Wait, but the pool counts a task after resolving its future (pool.go: invokeTask then updateMetrics)",
			"TestResultPoolSubmitContextCanceled": "test race: the same metrics assertion after Wait",
		},
	},
	{
		module: "github.com/panjf2000/ants/v2",
		pkgs:   []string{"github.com/panjf2000/ants/v2"},
		// The rest of ants' tests run for minutes natively (TestRestCodeCoverage alone did
		// not finish in ten minutes under exploration).
		run: "^(TestNonblockingSubmit.*|TestMaxBlockingSubmit.*|TestPurge.*|TestPanicHandler.*|TestInfinitePool.*|TestRebootNewPool)$",
		real: map[string]string{
			"TestNonblockingSubmitWithFunc":        "test race: the task calls wg.Done before its worker returns to the pool, so the nonblocking Invoke after wg.Wait may find the pool full",
			"TestNonblockingSubmitWithFuncGeneric": "test race: the same, generic pool",
			"TestNonblockingSubmit":                "test race: the same, Submit",
		},
	},
	{
		module: "github.com/gammazero/workerpool",
		pkgs:   []string{"github.com/gammazero/workerpool", "github.com/gammazero/workerpool/pacer"},
	},
	{
		module: "github.com/sourcegraph/conc",
		pkgs: []string{"github.com/sourcegraph/conc", "github.com/sourcegraph/conc/iter", "github.com/sourcegraph/conc/panics",
			"github.com/sourcegraph/conc/pool", "github.com/sourcegraph/conc/stream"},
		real: map[string]string{
			"TestPool":              "leak in its tests: subtests that test configuration panics call Go and never Wait, so the pool's worker blocks forever in range p.tasks (pool.go:153)",
			"TestContextPool":       "leak in its tests: the same",
			"TestErrorPool":         "leak in its tests: the same",
			"TestResultContextPool": "leak in its tests: the same",
			"TestResultErrorGroup":  "leak in its tests: the same",
			"TestResultGroup":       "leak in its tests: the same",
			"TestResultErrorPool":   "leak in its tests: the same",
			"TestResultPool":        "leak in its tests: the same",
		},
		// The example prints its own call stack (runtime.CallersFrames), which under the
		// engine runs through the renamed example, the harness and the engine, not through go
		// test's runExample: its output differs the same way in every schedule, a notice.
		notices: map[string]string{
			"github.com/sourcegraph/conc/panics ExampleCatcher_callers": "does not depend on the schedule",
		},
	},
	{module: "github.com/patrickmn/go-cache", pkgs: []string{"github.com/patrickmn/go-cache"}},
	{
		// A stream multiplexer whose sessions talk over net.Pipe (issue 43): before the
		// virtual network, 39 of its 46 tests were abandoned, blocked outside the engine. Its
		// TCP tests (testTCPConn) assert a connection to *net.TCPConn, so their dials stay
		// real and are left out, with the tests whose every schedule runs into the step bound
		// or that take tens of seconds each (TestWindowOverflow, TestSendData_Large).
		module: "github.com/libp2p/go-yamux/v5",
		pkgs:   []string{"github.com/libp2p/go-yamux/v5"},
		run: "^(TestPing|TestAccept|TestGoAway|TestCloseBeforeAck|TestNonNilInterface|TestCloseWithError|TestHalfClose|TestCloseRead|TestReadDeadline|" +
			"TestKeepAlive|TestKeepAlive_Timeout|TestStreamHalfClose2|TestStreamResetRead|TestStreamResetWithError|TestReadDeadlineInterrupt|" +
			"TestMaxIncomingStreams|TestSession_PartialReadWindowUpdate|TestSession_sendMsg_Timeout|TestLotsOfWritesWithStreamDeadline)$",
	},
	{
		module: "github.com/jellydator/ttlcache/v3",
		pkgs:   []string{"github.com/jellydator/ttlcache/v3"},
		real: map[string]string{
			"Test_Cache_Start": "leak in its tests: the goroutine running Start is not stopped (go test's own goleak check fails on it natively too)",
		},
	},
	{module: "golang.org/x/time", pkgs: []string{"golang.org/x/time/rate"}},
	{
		module: "github.com/hashicorp/golang-lru/v2",
		pkgs:   []string{"github.com/hashicorp/golang-lru/v2", "github.com/hashicorp/golang-lru/v2/expirable", "github.com/hashicorp/golang-lru/v2/simplelru"},
	},
	{module: "github.com/sony/gobreaker", pkgs: []string{"github.com/sony/gobreaker"}},
	{
		// The RPC framework's shared test helper, internal/grpctest, runs each package's tests
		// as methods of a type, found by reflection (RunSubTests: m.Interface().(func(*testing.T)))
		// under one top-level Test, with a goroutine leak check (runtime.Stack) in each
		// subtest's cleanup: it builds only because the test's *testing.T stays a *testing.T
		// (issue 46). internal/buffer alone, the smallest package using it (internal/grpcsync
		// adds 35 s of build).
		module: "google.golang.org/grpc",
		// Its leak check skips goroutines with testing.tRunner on their stacks, as the test's
		// and its subtests' goroutines have them under go test (engine.Stack).
		pkgs: []string{"google.golang.org/grpc/internal/buffer"},
	},
	{
		module: "github.com/asaskevich/EventBus",
		pkgs:   []string{"github.com/asaskevich/EventBus"},
		real: map[string]string{
			"TestSubscribeAsync": "leak in its tests: the goroutine ranging over results never ends, the channel is never closed",
		},
	},
}

// TestRealModules runs the tests of the modules of realMods under interleave test, each
// module instrumented, from testdata/realmods, with GOPROXY=off once the modules are in the
// module cache (downloaded through the proxy when they are not). It checks that every package
// builds untouched (exit status 0 or 1, never 2) and that every test passes, or reports a bug
// listed as real (or a known false report, named in the log). Races are findings, not
// failures. INTERLEAVE_REALMODS_SCHEDULES sets the schedules per test (default 10: about two
// minutes on two cores, mostly builds); the note of the issue lists what larger budgets found.
func TestRealModules(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and explores twelve real modules; skipped in -short mode")
	}
	schedules := 10
	if v := os.Getenv("INTERLEAVE_REALMODS_SCHEDULES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("INTERLEAVE_REALMODS_SCHEDULES=%q: want a positive number", v)
		}
		schedules = n
	}
	modDir, err := filepath.Abs(filepath.Join("testdata", "realmods"))
	if err != nil {
		t.Fatal(err)
	}
	// What the packages and their tests import, downloaded: go mod download alone fetches
	// what builds the packages, not what their tests import (testify, ...), which a fresh
	// module cache then lacks.
	var pkgs []string
	for _, m := range realMods {
		pkgs = append(pkgs, m.pkgs...)
	}
	dl := exec.Command("go", append([]string{"list", "-test", "-deps"}, pkgs...)...)
	dl.Dir = modDir
	dl.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := dl.CombinedOutput(); err != nil {
		t.Skipf("the modules of testdata/realmods are neither in the module cache nor reachable through the module proxy (go list -test -deps: %v)\n%s", err, out)
	}
	bin := buildInterleave(t)
	for _, m := range realMods {
		for _, pkg := range m.pkgs {
			t.Run(strings.TrimPrefix(pkg, "github.com/"), func(t *testing.T) {
				// A lower step bound: the tests that submit thousands of tasks reach it in
				// every schedule (a notice), sooner.
				// -saved=false: the module cache copy's store keeps what earlier runs saved, and this
				// measures what an exploration of the module's own tests finds.
				args := []string{"test", "-json", "-instrument", m.module, "-schedules", strconv.Itoa(schedules), "-minimize", "0", "-max-steps", "20000", "-saved=false"}
				if m.run != "" {
					args = append(args, "-run", m.run)
				}
				if m.skip != "" {
					args = append(args, "-skip", m.skip)
				}
				args = append(args, pkg)
				cmd := exec.Command(bin, args...)
				cmd.Dir = modDir
				cmd.Env = append(os.Environ(), "GOWORK=off", "GOPROXY=off", "GOFLAGS=-mod=mod")
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
				if code != 0 && code != 1 {
					t.Fatalf("interleave %s: exit status %d: the package did not build or could not be explored\n%s", strings.Join(args, " "), code, lastLines(stderr.String()+stdout.String(), 40))
				}
				type event struct {
					Action    string
					Test      string
					Schedules int
					Notice    string
					Bug       *struct{ Kind, Message, Position string }
				}
				var passed, failed []string
				sc := bufio.NewScanner(&stdout)
				sc.Buffer(make([]byte, 1<<20), 64<<20)
				for sc.Scan() {
					var e event
					if json.Unmarshal(sc.Bytes(), &e) != nil || e.Test == "" {
						continue
					}
					switch e.Action {
					case "pass":
						passed = append(passed, e.Test)
						if e.Notice != "" {
							t.Logf("%s: notice: %s", e.Test, firstLine(e.Notice))
						}
						if want := m.notices[pkg+" "+e.Test]; want != "" && !strings.Contains(e.Notice, want) {
							t.Errorf("%s: passed with notice %q: want one saying %q", e.Test, e.Notice, want)
						}
					case "fail":
						top, _, _ := strings.Cut(e.Test, "/")
						switch {
						case e.Bug == nil:
							t.Errorf("%s: could not be explored (see the output)\n%s", e.Test, lastLines(stderr.String(), 20))
						case m.real[top] != "":
							t.Logf("%s: %s (real: %s)", e.Test, e.Bug.Kind, m.real[top])
						case m.knownFalse[top] != "":
							t.Logf("%s: %s — KNOWN FALSE REPORT: %s", e.Test, e.Bug.Kind, m.knownFalse[top])
						default:
							t.Errorf("%s: %s at %s: %s — a report not known to be real", e.Test, e.Bug.Kind, e.Bug.Position, firstLine(e.Bug.Message))
						}
						failed = append(failed, e.Test)
					}
				}
				for key := range m.notices {
					if name, ok := strings.CutPrefix(key, pkg+" "); ok && !slices.Contains(passed, name) {
						t.Errorf("%s: did not pass (reported %v): want a pass with a notice", name, failed)
					}
				}
				sort.Strings(failed)
				t.Logf("%s: %d passed, %d reported %v, %d schedules each at most, %.1fs with the build", pkg, len(passed), len(failed), failed, schedules, time.Since(start).Seconds())
				if len(passed)+len(failed) == 0 {
					t.Errorf("no test ran\n%s", lastLines(stderr.String(), 20))
				}
			})
		}
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
