package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine/stress"
)

// stressLine is a line of interleave stress -json.
type stressLine struct {
	Package string `json:"package"`
	Phase   string `json:"phase"`
	stress.Event
}

// TestStressExamples runs interleave stress on the bundled examples of testdata/stress, bugs
// that controlled exploration cannot find: a frame interleaving behind a real net.Pipe
// (wire), a torn configuration that only shows when two tests run together (config), a hang
// that only rare inputs reach (session); and a correct package (clean) that must run its
// whole budget with no report. Then the hang's saved record is re-run with -repro, which
// reproduces it with the recorded inputs on the first iteration.
func TestStressExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs instrumented test binaries for seconds")
	}
	dir, err := filepath.Abs("../../testdata/stress")
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	code, out, errOut := interleaveIn(t, dir, nil, "stress", "-json", "-explore=false", "-time", "8s", "-seed", "1",
		"./wire", "./config", "./session", "./clean")
	if code != 1 {
		t.Fatalf("interleave stress: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	failures := map[string]*stress.Failure{} // by package and test
	phases := map[string][]string{}
	done := map[string]*stress.Event{}
	var publish int64
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var l stressLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("not a stress event: %v\n%s", err, sc.Text())
		}
		pkg := strings.TrimPrefix(l.Package, "example.com/stress/")
		if f := l.Failure; f != nil {
			if failures[pkg+" "+f.Test] == nil {
				failures[pkg+" "+f.Test] = f
			}
			phases[pkg+" "+f.Test] = append(phases[pkg+" "+f.Test], l.Phase)
		}
		if l.Action == "done" && pkg == "clean" {
			for _, ts := range l.Tests {
				if ts.Name == "TestPublish" {
					publish += ts.Iterations
				}
			}
		}
		if l.Action == "done" && l.Phase == "together" {
			ev := l.Event
			done[pkg] = &ev
		}
	}
	t.Logf("stderr:\n%s", errOut)

	if f := failures["wire TestConcurrentSend"]; f == nil || f.Kind != stress.KindFail || !strings.Contains(f.Message, "never sent") {
		t.Errorf("wire: failure %+v, want a fail: a frame that was never sent", f)
	} else if len(f.Inputs) != 1 || f.Inputs[0].Name != "size" {
		t.Errorf("wire: inputs %+v, want the drawn size", f.Inputs)
	}
	var config *stress.Failure
	for _, name := range []string{"TestReaders", "TestReconfigure"} {
		if slices.Contains(phases["config "+name], "alone") {
			t.Errorf("config: %s failed alone: each test passes on its own", name)
		}
		if f := failures["config "+name]; f != nil {
			config = f
		}
	}
	if config == nil || config.Kind != stress.KindFail || len(config.Together) != 1 {
		t.Errorf("config: failure %+v, want a fail of one test while the other ran", config)
	}
	hang := failures["session TestCall"]
	if hang == nil || hang.Kind != stress.KindHang || !strings.Contains(hang.Stacks, "session.Call") {
		t.Fatalf("session: failure %+v, want a hang with the client's stack", hang)
	}
	big := false
	for _, d := range hang.Inputs {
		big = big || (d.Name == "size" && d.Value > 4096)
	}
	if !big {
		t.Errorf("session: the hang's inputs %+v lack a request over the server's buffer", hang.Inputs)
	}
	for key := range failures {
		if strings.HasPrefix(key, "clean ") {
			t.Errorf("clean: failure %+v", failures[key])
		}
	}
	if ev := done["clean"]; ev == nil || len(ev.Combinations) == 0 || ev.Combinations["TestAdd+TestShared"] == 0 {
		t.Errorf("clean: the melting pot did not run both tests together: %+v", ev)
	}
	// TestPublish cannot run twice in a process (expvar panics on a name published twice);
	// its configuration says "fresh", so it ran once per process, in several.
	if publish < 2 {
		t.Errorf("clean: TestPublish ran %d iterations, want one per process in several processes", publish)
	}

	// -repro re-runs the hang with its inputs.
	var record string
	entries, _ := os.ReadDir(filepath.Join(dir, ".interleave", "stress"))
	for _, e := range entries {
		info, err := e.Info()
		if err == nil && strings.Contains(e.Name(), "-TestCall-hang-") && !info.ModTime().Before(started) {
			record = filepath.Join(dir, ".interleave", "stress", e.Name())
		}
	}
	if record == "" {
		t.Fatal("no saved record of the hang")
	}
	code, out, errOut = interleaveIn(t, dir, nil, "stress", "-repro", record, "-time", "20s")
	if code != 1 || !strings.Contains(out, "reproduced: hang of TestCall") || !strings.Contains(out, "iteration 1,") {
		t.Fatalf("-repro: exit %d, want 1 and the hang reproduced on iteration 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestStressBadInput: flags and -repro files that cannot be used get a message naming what
// and where, and exit status 2, before anything is built.
func TestStressBadInput(t *testing.T) {
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "garbage.json")
	os.WriteFile(notJSON, []byte("{not json"), 0o644)
	noFailure := filepath.Join(dir, "empty.json")
	os.WriteFile(noFailure, []byte(`{"package": "p", "dir": "/x"}`), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-time", "0s"}, "-time 0s: want a positive duration"},
		{[]string{"-p", "0"}, "-p 0: want at least 1 process"},
		{[]string{"-combine", "0"}, "-combine 0: want at least 1 test at once"},
		{[]string{"-run", "("}, "-run: error parsing regexp"},
		{[]string{"-repro", filepath.Join(dir, "missing.json")}, "missing.json: no such file"},
		{[]string{"-repro", notJSON}, "garbage.json: not a stress record"},
		{[]string{"-repro", noFailure}, "empty.json: not a stress record: no failure"},
	} {
		code, _, errOut := runCmd(t, append([]string{"stress"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("stress %v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestStressRace: with -race, Go's race detector's report of a race no assertion sees (the
// tally example) is a failure of the test, with the report.
func TestStressRace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary with -race")
	}
	dir, err := filepath.Abs("../../testdata/stress")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := interleaveIn(t, dir, nil, "stress", "-race", "-explore=false", "-time", "2s", "./tally")
	if code != 1 || !strings.Contains(out, "--- RACE: example.com/stress/tally TestMerge") || !strings.Contains(out, "tally.go:10") {
		t.Fatalf("interleave stress -race: exit %d, want 1 and the race at tally.go:10\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut = interleaveIn(t, dir, nil, "stress", "-race", "-json", "-explore=false", "-time", "1s", "./tally")
	if code != 1 || !strings.Contains(out, `"action":"failure"`) || !strings.Contains(out, `"kind":"race"`) {
		t.Fatalf("interleave stress -race -json: exit %d, want 1 and a failure event of kind race\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut = interleaveIn(t, dir, nil, "stress", "-explore=false", "-time", "1s", "./tally")
	if code != 0 {
		t.Fatalf("interleave stress without -race: exit %d, want 0 (no assertion sees the race)\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestStressHandsFailuresToExplorer: a failure of a test the controlled engine can run is
// explored with interleave test, and the record links the schedule that replays it. The bug
// (testdata/stress/average) is behind an input value: under interleave test the randomizer
// draws from the execution's source, so the exploration reaches the empty input too, and every
// replay of the schedule draws it again.
func TestStressHandsFailuresToExplorer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir, err := filepath.Abs("../../testdata/stress")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := interleaveIn(t, dir, nil, "stress", "-time", "2s", "-seed", "5", "./average")
	if code != 1 || !strings.Contains(out, "--- PANIC: example.com/stress/average TestMean") {
		t.Fatalf("interleave stress: exit %d, want 1 and the panic\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	var record string
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "panic TestMean: saved "); ok {
			record, _, _ = strings.Cut(rest, " ")
		}
	}
	if record == "" {
		t.Fatalf("no saved record in\n%s", out)
	}
	rec, err := readStressRecord(filepath.Join(dir, record))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Schedule == "" || !strings.Contains(rec.Explored, "interleave test found a panic") {
		t.Fatalf("record %+v: want the schedule interleave test found", rec)
	}
	for range 3 {
		code, out, errOut = interleaveIn(t, dir, nil, "replay", rec.Schedule)
		if code != 1 || !strings.Contains(out, "panic found by replay") || !strings.Contains(out, "integer divide by zero") {
			t.Fatalf("replay of the linked schedule: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	}
}

// TestStressBadConfig: an interleave-stress.json that cannot be used stops the run before
// anything runs, naming the file, the line and column, and the field.
func TestStressBadConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an instrumented test binary")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":                 "module example.com/badconfig\n\ngo 1.22\n",
		"x_test.go":              "package x\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n",
		"interleave-stress.json": "{\n  \"tests\": {\n    \"TestX\": {\"hang\": \"soon\"}\n  }\n}\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := interleaveIn(t, dir, nil, "stress", "-time", "1s", ".")
	want := "interleave-stress.json:3:23: tests.TestX.hang: time: invalid duration \"soon\""
	if code != 2 || !strings.Contains(errOut, want) {
		t.Fatalf("exit %d, want 2 and %q\nstdout:\n%s\nstderr:\n%s", code, want, out, errOut)
	}
}
