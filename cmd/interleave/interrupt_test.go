//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/report"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/test"
)

// endlessTest never fails, and its random walk has no end (-schedules 0): it is explored until
// the run is stopped. With READY set, its first execution says that it runs through that FIFO
// (once: MARKER records that it did). TestNext is never reached with -p 1.
const endlessTest = `package m

import (
	"os"
	"strconv"
	"sync"
	"testing"
)

func TestEndless(t *testing.T) {
	if ready := os.Getenv("READY"); ready != "" {
		if _, err := os.Stat(os.Getenv("MARKER")); err != nil {
			os.WriteFile(os.Getenv("MARKER"), nil, 0o644)
			os.WriteFile(ready, []byte(strconv.Itoa(os.Getpid())), 0o644)
		}
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	n := 0
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
	if n != 2 {
		t.Fatalf("n = %d", n)
	}
}

func TestNext(t *testing.T) {}
`

// TestInterruptedRunIsNotAPass: SIGTERM to interleave test while it explores (a CI runner's
// timeout) makes a run that says it was interrupted — no "ok" — and exits 143 (128 +
// SIGTERM), with a JUnit report whose stopped and unstarted tests are errors, a SARIF log of
// an unsuccessful execution, and a run summary marked interrupted. The signal is sent once the
// -json stream shows schedules explored, or (text output) once the test says through a FIFO
// that it runs.
func TestInterruptedRunIsNotAPass(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := writeModule(t, map[string]string{"m_test.go": endlessTest})
	for _, jsonOut := range []bool{true, false} {
		name := "text"
		if jsonOut {
			name = "json"
		}
		t.Run(name, func(t *testing.T) {
			os.RemoveAll(filepath.Join(dir, ".interleave"))
			reports := t.TempDir()
			junitPath, sarifPath := filepath.Join(reports, "r.xml"), filepath.Join(reports, "r.sarif")
			args := []string{"test", "-strategy", "random", "-schedules", "0", "-p", "1", "-junit", junitPath, "-sarif", sarifPath, "."}
			cmd := exec.Command(interleaveBinary(t), args...)
			cmd.Dir = dir
			cmd.Env = os.Environ()
			var ready string
			if jsonOut {
				cmd.Args = append(cmd.Args[:2], append([]string{"-json"}, cmd.Args[2:]...)...)
			} else {
				ready, _, _ = fifos(t)
				cmd.Env = append(cmd.Env, "READY="+ready, "MARKER="+filepath.Join(t.TempDir(), "marker"))
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var errOut bytes.Buffer
			cmd.Stderr = &errOut
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if jsonOut {
				// Signaled at the first progress event that counts schedules explored.
				in := bufio.NewReader(stdout)
				for {
					line, err := in.ReadBytes('\n')
					out.Write(line)
					var e test.JSONEvent
					if json.Unmarshal(line, &e) == nil && e.Action == "progress" && e.Schedules != nil && *e.Schedules > 0 {
						break
					}
					if err != nil {
						t.Fatalf("the run ended before it showed schedules explored: %v\n%s\n%s", err, out.String(), errOut.String())
					}
				}
				stdout = io.NopCloser(in)
			} else {
				readPID(t, ready)
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			io.Copy(&out, stdout)
			err = cmd.Wait()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			if code != 143 {
				t.Errorf("exit %d, want 143 (128 + SIGTERM)\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
			}
			if jsonOut {
				e := finalEvent(t, out.String(), "TestEndless")
				if e.Action != "fail" || e.Interrupted != "terminated" || e.Bug != nil {
					t.Errorf("the final event of TestEndless: %+v, want a fail, interrupted by terminated, without a bug", e)
				}
				if !strings.Contains(out.String(), `"Output":"signal: terminated\n"`) {
					t.Errorf("no output event says signal: terminated:\n%s", out.String())
				}
			} else {
				if strings.Contains(out.String(), "ok  \t") || !strings.Contains(out.String(), "FAIL\texample.com/m\tTestEndless\tinterrupted (signal: terminated)") ||
					!strings.Contains(out.String(), "FAIL\tinterrupted (signal: terminated): 1 test(s) stopped before the end of their exploration, 1 not started") {
					t.Errorf("want TestEndless said interrupted, not ok, and the run too:\n%s", out.String())
				}
			}

			// JUnit: not passing — the stopped test and the one not started are errors.
			b, err := os.ReadFile(junitPath)
			if err != nil {
				t.Fatal(err)
			}
			var r report.JUnitSuites
			if err := xml.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			if r.Tests != 2 || r.Errors != 2 || r.Failures != 0 {
				t.Errorf("JUnit: %d tests, %d errors, %d failures; want 2 tests, both errors\n%s", r.Tests, r.Errors, r.Failures, b)
			}
			for _, c := range r.Suites[0].Cases {
				if c.Error == nil || c.Error.Type != "interrupted" {
					t.Errorf("JUnit case %s: %+v, want an error of type interrupted", c.Name, c.Error)
				}
			}
			if p := r.Suites[0].Properties; p[len(p)-1].Name != "interrupted" || p[len(p)-1].Value != "signal: terminated" {
				t.Errorf("JUnit properties %+v: want interrupted", p)
			}

			// SARIF: an unsuccessful execution, with why.
			l := readSARIF(t, sarifPath)
			if inv := l.Runs[0].Invocations[0]; inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 1 ||
				!strings.Contains(inv.ToolExecutionNotifications[0].Message.Text, "interrupted (signal: terminated)") {
				t.Errorf("SARIF invocation %+v: want an unsuccessful execution, interrupted", inv)
			}

			// The run summary: interrupted, each test marked.
			runs, _ := filepath.Glob(filepath.Join(dir, ".interleave", "runs", "*.json"))
			if len(runs) != 1 {
				t.Fatalf("run summaries %v, want one", runs)
			}
			s, err := report.LoadSummary(runs[0])
			if err != nil {
				t.Fatal(err)
			}
			if s.Interrupted != "terminated" || len(s.Tests) != 2 || !s.Tests[0].Interrupted || !s.Tests[1].Interrupted || s.Tests[0].Result == nil {
				t.Errorf("run summary: interrupted %q, tests %+v; want interrupted by terminated, both tests marked, the first with what it explored", s.Interrupted, s.Tests)
			}
		})
	}
}
