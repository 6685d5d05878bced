package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/stress"
)

// flattenAlike is a module whose packages a/b and a_b flatten to the same name when "/" is
// written "_": the test of a/b loses an update, the same-named test of a_b does not.
var flattenAlike = map[string]string{
	"a/b/b_test.go": strings.Replace(racyTest, "package m", "package b", 1),
	"a_b/ab_test.go": `package a_b

import (
	"sync"
	"testing"
)

func TestLostUpdate(t *testing.T) {
	n := 0
	var mu sync.Mutex
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
	if n != 2 {
		t.Fatalf("n = %d, want 2", n)
	}
}
`,
}

// Packages whose import paths flatten alike (a/b and a_b) get a test binary and an
// instrumentation document each: tested in one run, in either order, each package's own test
// runs — the failing one fails and the run exits 1. They shared one binary, so the package
// built last ran for both and a failing test was reported ok with exit status 0.
func TestPackagesThatFlattenAlike(t *testing.T) {
	if testing.Short() {
		t.Skip("builds instrumented test binaries")
	}
	for _, order := range [][]string{{"./a/b", "./a_b"}, {"./a_b", "./a/b"}} {
		t.Run(strings.Join(order, ","), func(t *testing.T) {
			files := make(map[string]string)
			for name, content := range flattenAlike {
				files[name] = content
			}
			dir := writeModule(t, files)
			args := append([]string{"test", "-schedules", "200", "-minimize", "0"}, order...)
			code, out, errOut := interleaveIn(t, dir, nil, args...)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			failLine := "FAIL\texample.com/m/a/b\tTestLostUpdate\tfail bug, "
			okLine := "ok  \texample.com/m/a_b\tTestLostUpdate\t"
			if !hasLinePrefix(out, failLine) {
				t.Errorf("no line %q", failLine)
			}
			if !hasLinePrefix(out, okLine) {
				t.Errorf("no line %q", okLine)
			}
			if t.Failed() {
				t.Fatalf("stdout:\n%s\nstderr:\n%s", out, errOut)
			}

			// An instrumentation document for each package.
			entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(findings.InstrumentDir)))
			if err != nil {
				t.Fatal(err)
			}
			var pkgs []string
			for _, e := range entries {
				path := filepath.Join(dir, filepath.FromSlash(findings.InstrumentDir), e.Name())
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				d, err := findings.DecodeInstrumentation(data, path)
				if err != nil {
					t.Fatal(err)
				}
				pkgs = append(pkgs, d.Package)
			}
			sort.Strings(pkgs)
			if want := []string{"example.com/m/a/b", "example.com/m/a_b"}; strings.Join(pkgs, " ") != strings.Join(want, " ") {
				t.Errorf("instrumentation documents of %q, want one of each of %q", pkgs, want)
			}
		})
	}
}

func hasLinePrefix(out, prefix string) bool {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, prefix) {
			return true
		}
	}
	return false
}

// Two stress runs that start in the same second and record the same failure keep a record
// each: the second was written over the first.
func TestStressRecordsOfOneSecondKeptApart(t *testing.T) {
	dir := writeModule(t, map[string]string{})
	started := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	var paths []string
	for run := 1; run <= 2; run++ {
		var out bytes.Buffer
		r := &stressRun{f: &stressFlags{}, out: &out, started: started.Add(time.Duration(run) * time.Millisecond),
			failures: []*stressRecord{{Package: "example.com/m", Dir: dir, Seed: uint64(run),
				Failure: &stress.Failure{Kind: stress.KindFail, Test: "TestX", Message: "run " + strconv.Itoa(run)}}}}
		if err := r.save(); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, out.String())
	}
	entries, err := os.ReadDir(filepath.Join(dir, ".interleave", "stress"))
	if err != nil {
		t.Fatal(err)
	}
	seeds := map[uint64]bool{}
	for _, e := range entries {
		rec, err := readStressRecord(filepath.Join(dir, ".interleave", "stress", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		seeds[rec.Seed] = true
	}
	if len(entries) != 2 || !seeds[1] || !seeds[2] {
		t.Fatalf("%d records (seeds %v), want one of each run\n%s", len(entries), seeds, strings.Join(paths, ""))
	}
}
