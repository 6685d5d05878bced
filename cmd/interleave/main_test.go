package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestDemoFindsBugSavesAndReplays(t *testing.T) {
	for _, tc := range []struct {
		program, kind, want string
	}{
		{"bank", "fail", "both withdrawals of 60 succeeded"},
		{"philosophers", "deadlock", "all goroutines are blocked"},
	} {
		t.Run(tc.program, func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := runCmd(t, "demo", "-o", dir, tc.program)
			if code != 1 {
				t.Fatalf("exit %d, want 1 (bug found)\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			for _, want := range []string{tc.kind + " found by pct", tc.want, "the schedule (", "same bug at the same step"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			file := filepath.Join(dir, "demo-"+tc.program+"-"+tc.kind+".json")
			if _, err := os.Stat(file); err != nil {
				t.Fatalf("schedule file: %v", err)
			}
			code, out, errOut = runCmd(t, "replay", file)
			if code != 1 || !strings.Contains(out, tc.want) {
				t.Fatalf("replay: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			code, out, _ = runCmd(t, "replay", "-until", "2", file)
			if code != 0 || !strings.Contains(out, "stopped after step 2") || strings.Count(out, "\n     ") > 3 {
				t.Fatalf("replay -until 2: exit %d\n%s", code, out)
			}
		})
	}
}

func TestDemoWithEveryStrategy(t *testing.T) {
	for _, s := range []string{"random", "pct:d=2", "dfs", "ipb", "idb"} {
		t.Run(s, func(t *testing.T) {
			code, out, errOut := runCmd(t, "demo", "-o", t.TempDir(), "-strategy", s, "-schedules", "5000")
			if code != 1 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.json")
	os.WriteFile(corrupt, []byte(`{"version": 1, "test": {"name": "bank"`), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "Usage"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"unknown program", []string{"demo", "nosuch"}, `unknown program "nosuch"`},
		{"unknown strategy", []string{"demo", "-strategy", "nosuch"}, `unknown strategy "nosuch"`},
		{"bad parameter", []string{"demo", "-strategy", "pct:d=0"}, "d must be"},
		{"missing file", []string{"replay", filepath.Join(dir, "none.json")}, "none.json"},
		{"corrupt file", []string{"replay", corrupt}, "corrupt.json"},
		{"no file", []string{"replay"}, "want one schedule file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, tc.args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Fatalf("stderr lacks %q:\n%s", tc.want, errOut)
			}
		})
	}
}
