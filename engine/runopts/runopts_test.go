package runopts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// decodeJSON decodes options as a client's JSON arrives: numbers as float64 (the language
// server) or as json.Number (the debug adapter).
func decodeJSON(t *testing.T, s string, useNumber bool) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	if useNumber {
		dec.UseNumber()
	}
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return m
}

// store makes a module directory with a results store and returns both.
func store(t *testing.T) (root, st string) {
	t.Helper()
	root = t.TempDir()
	st = filepath.Join(root, ".interleave")
	if err := os.MkdirAll(filepath.Join(st, "reports"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root, st
}

// TestParseTest: interleave.runTest's options, valid ones with the flags they become, and
// invalid ones with an error that names the option and the value.
func TestParseTest(t *testing.T) {
	root, st := store(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(st, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "nothing"), filepath.Join(st, "dangling.xml")); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(st, "link.xml")); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Surface: Test, DefaultStrategy: TestStrategy, Store: st, Dir: root,
		Reserved: map[string]string{"run": "set by the command"}}
	valid := []struct {
		opts  string
		flags []string
	}{
		{`{}`, nil},
		{`{"schedules": 1000, "strategy": "pct"}`, []string{"-strategy=pct", "-schedules=1000"}},
		{`{"strategy": "pct", "d": 2, "k": "50"}`, []string{"-strategy=pct:d=2,k=50"}},
		{`{"strategy": "pct:d=3", "seed": 4611686018427387904}`, []string{"-strategy=pct:d=3", "-seed=4611686018427387904"}},
		{`{"strategy": "stride", "lengths": "3,4", "p": 0.0216}`, []string{"-strategy=stride:p=0.0216", "-lengths=3,4"}},
		{`{"strategy": "stride:p=0.0216"}`, []string{"-strategy=stride:p=0.0216"}},
		{`{"strategy": "ipb", "max": 2}`, []string{"-strategy=ipb:max=2"}},
		{`{"members": "pct+random"}`, []string{"-strategy=portfolio:members=pct+random"}},
		{`{"time": "30s", "minimize": "0"}`, []string{"-time=30s", "-minimize=0s"}},
		{`{"points": "racy", "races": "fail", "race-runs": 3}`, []string{"-points=racy", "-races=fail", "-race-runs=3"}},
		{`{"max-steps": 5000, "fair-steps": -1}`, []string{"-max-steps=5000", "-fair-steps=-1"}},
		{`{"tags": ["integration", "go1.22"]}`, []string{"-tags=integration,go1.22"}},
		{`{"tags": "a,b"}`, []string{"-tags=a,b"}},
		{`{"skip": "^TestSlow", "keep-going": true, "strict-leaks": false}`, []string{"-skip=^TestSlow", "-keep-going=true", "-strict-leaks=false"}},
		{`{"junit": ".interleave/report.xml", "sarif": "` + filepath.Join(st, "reports", "x.sarif") + `"}`,
			[]string{"-junit=" + mustEval(t, st) + "/report.xml", "-sarif=" + mustEval(t, st) + "/reports/x.sarif"}},
		{`{"junit": ".interleave/reports/../r.xml"}`, []string{"-junit=" + mustEval(t, st) + "/r.xml"}},
		{`{"strategy": ""}`, nil},
		{`{"tags": []}`, nil},
		{`{"schedules": 1e3, "max-steps": 2.0}`, []string{"-schedules=1000", "-max-steps=2"}},
	}
	for _, tc := range valid {
		for _, useNumber := range []bool{false, true} {
			o, err := Parse(decodeJSON(t, tc.opts, useNumber), cfg)
			if err != nil {
				t.Errorf("%s: %v", tc.opts, err)
				continue
			}
			if got := o.Flags(TestStrategy); !reflect.DeepEqual(got, tc.flags) {
				t.Errorf("%s: flags %q, want %q", tc.opts, got, tc.flags)
			}
		}
	}
	invalid := []struct {
		opts string
		want string // in the error
	}{
		{`{"toolexec": "/tmp/x.sh"}`, `option "toolexec" is not accepted (accepted: fair-steps, junit, keep-going, max-steps, minimize, points, race-runs, races, sarif, schedules, seed, skip, sleeps, strategy, strict-leaks, tags, time, and the strategies' parameters (d, fair, k, learn, lengths, max, members, mode, n, p, periods, smax))`},
		{`{"exec": "sh"}`, `option "exec" is not accepted`},
		{`{"-toolexec": "sh"}`, `option "-toolexec" is not accepted`},
		{`{"run": "TestX"}`, `option run: set by the command`},
		{`{"junit": "/tmp/report.xml"}`, `option junit: "/tmp/report.xml": /tmp/report.xml is outside the results store`},
		{`{"junit": "report.xml"}`, `option junit: "report.xml": ` + mustEval(t, root) + `/report.xml is outside the results store`},
		{`{"sarif": ".interleave/../x.sarif"}`, `is outside the results store`},
		{`{"sarif": ".interleave"}`, `is outside the results store`},
		{`{"junit": ".interleave/out/r.xml"}`, `option junit: ".interleave/out/r.xml": ` + mustEval(t, outside) + `/r.xml is outside the results store`},
		{`{"junit": ".interleave/dangling.xml"}`, `is a symbolic link that leads nowhere`},
		{`{"junit": ".interleave/link.xml"}`, `option junit: ".interleave/link.xml": ` + mustEval(t, secret) + ` is outside the results store`},
		{`{"junit": ".interleave/reports"}`, `exists and is not a regular file`},
		{`{"junit": 3}`, `option junit: 3: want the path of a file in the results store`},
		{`{"schedules": -1}`, `option schedules: -1: want a number of schedules ≥ 0`},
		{`{"schedules": 1.5}`, `option schedules: 1.5: want an integer`},
		{`{"schedules": "100"}`, `option schedules: "100": want an integer`},
		{`{"schedules": 1e300}`, `: want an integer`},
		{`{"seed": -1}`, `option seed: -1: want an unsigned integer`},
		{`{"time": "-1s"}`, `option time: "-1s": want a duration ≥ 0`},
		{`{"time": 30}`, `option time: 30: want a duration such as "30s"`},
		{`{"minimize": "soon"}`, `option minimize: "soon": want a duration`},
		{`{"points": "most"}`, `option points: "most": want "all", "sync" or "racy"`},
		{`{"races": "loud"}`, `option races: "loud": want "report", "fail" or "off"`},
		{`{"race-runs": 0}`, `option race-runs: 0: want a number of schedules ≥ 1`},
		{`{"max-steps": -5}`, `option max-steps: -5: want a number of steps ≥ 0`},
		{`{"keep-going": "yes"}`, `option keep-going: "yes": want true or false`},
		{`{"skip": "("}`, `option skip: "(": error parsing regexp`},
		{`{"skip": "-x"}`, `option skip: "-x": a value may not start with '-'`},
		{`{"tags": "a b"}`, `option tags: "a b": tag "a b": want letters, digits`},
		{`{"tags": ["-toolexec=sh"]}`, `option tags: ["-toolexec=sh"]: a value may not start with '-'`},
		{`{"tags": [1]}`, `option tags: [1]: want a list of strings`},
		{`{"tags": {"a": 1}}`, `want a list of strings`},
		{`{"strategy": "-toolexec=sh"}`, `option strategy: "-toolexec=sh": a value may not start with '-'`},
		{`{"strategy": "nope"}`, `option strategy: "nope": unknown strategy "nope"`},
		{`{"strategy": "pct:d"}`, `option strategy: "pct:d": strategy parameter "d" in "pct:d": want key=value`},
		{`{"strategy": "pct", "d": 0}`, `option strategy: pct: parameter d must be ≥ 1, got 0`},
		{`{"strategy": "pct", "d": "-x"}`, `option d (a strategy's parameter): "-x": a value may not start with '-'`},
		{`{"strategy": "pct", "d": true}`, `option d (a strategy's parameter): true: want a string or a number`},
		{`{"strategy": "pct:d=2", "d": 3}`, `option strategy: "pct:d=2": parameter d is given twice`},
		{`{"strategy": "pct", "max": 3}`, `option strategy: pct: unknown parameter "max"`},
		{`{"d": 3}`, `option strategy: portfolio: unknown parameter "d"`},
		{`{"strategy": "pct\nx"}`, `control character`},
		{`{"strategy": 3}`, `option strategy: 3: want a string`},
	}
	for _, tc := range invalid {
		for _, useNumber := range []bool{false, true} {
			_, err := Parse(decodeJSON(t, tc.opts, useNumber), cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: %v, want an error saying %q", tc.opts, err, tc.want)
			}
		}
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestParseLaunch: a launch configuration takes the exploration's options, not a run's
// (skip, junit, ...), and points racy needs the race pass that only interleave test makes.
func TestParseLaunch(t *testing.T) {
	cfg := Config{Surface: Launch, DefaultStrategy: "pct", Also: []string{"program"}}
	o, err := Parse(decodeJSON(t, `{"strategy": "pct:d=2", "k": 40, "schedules": 10, "seed": 7, "time": "1m", "points": "sync", "races": "off", "max-steps": 99, "strict-leaks": true, "tags": ["x"]}`, true), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := Options{Strategy: "pct", Params: map[string]string{"d": "2", "k": "40"}, Schedules: 10, Seed: 7, Time: 60e9, Points: "sync", Races: "off", MaxSteps: 99, StrictLeaks: true, Tags: []string{"x"}}
	o.given = nil
	if !reflect.DeepEqual(*o, want) {
		t.Errorf("options %+v, want %+v", *o, want)
	}
	for _, tc := range []struct{ opts, want string }{
		{`{"junit": "x.xml"}`, `option "junit" is not accepted (accepted: max-steps, points, program, races, schedules, seed, strategy, strict-leaks, tags, time, and the strategies' parameters`},
		{`{"toolexec": "x.sh"}`, `option "toolexec" is not accepted`},
		{`{"skip": "x"}`, `option "skip" is not accepted`},
		{`{"points": "racy"}`, `option points: "racy": want "all" or "sync"`},
		{`{"d": 0}`, `option strategy: pct: parameter d must be ≥ 1, got 0`},
	} {
		if _, err := Parse(decodeJSON(t, tc.opts, true), cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.opts, err, tc.want)
		}
	}
}

// TestInStoreNoStore: without a store, or with a store that is a symbolic link, no option
// writes a file.
func TestInStoreNoStore(t *testing.T) {
	if _, err := InStore("", t.TempDir(), "x.xml"); err == nil || !strings.Contains(err.Error(), "no results store") {
		t.Errorf("InStore without a store: %v", err)
	}
	root := t.TempDir()
	st := filepath.Join(root, ".interleave")
	if err := os.Symlink(t.TempDir(), st); err != nil {
		t.Fatal(err)
	}
	if _, err := InStore(st, root, ".interleave/authorized_keys"); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Errorf("InStore with a store that is a symbolic link: %v", err)
	}
}
