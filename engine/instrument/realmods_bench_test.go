package instrument_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"text/tabwriter"
	"time"
)

// BenchmarkRealModulesBudget measures interleave test's default budget on the modules of
// realMods (testdata/realmods), against go test on the same packages and tests, and against
// a run of -schedules 100 per test: for each module, the wall-clock time of go test -count=1,
// of interleave test with no budget flag (the default: a time budget per test and for the run,
// the plateau's early stop, the adaptive step bound), their ratio, and the tests reported
// with a bug by each interleave run, the bugs of the 100-schedule run that the default run did
// not report being listed as lost, and those of the default run that realMods does not list as
// real. It runs each command once, whatever b.N (run it with
// -benchtime=1x), and prints the table; -short skips it. INTERLEAVE_REALMODS_BENCH, a regular
// expression, measures only the modules whose path it matches (the whole table takes about
// twenty minutes on two cores):
//
//	go test ./engine/instrument -run '^$' -bench RealModulesBudget -benchtime=1x -timeout 2h
//	INTERLEAVE_REALMODS_BENCH='pond|workerpool' go test ./engine/instrument -run '^$' -bench RealModulesBudget -benchtime=1x
func BenchmarkRealModulesBudget(b *testing.B) {
	if testing.Short() {
		b.Skip("builds and explores eleven real modules")
	}
	only := regexp.MustCompile("")
	if v := os.Getenv("INTERLEAVE_REALMODS_BENCH"); v != "" {
		var err error
		if only, err = regexp.Compile(v); err != nil {
			b.Fatalf("INTERLEAVE_REALMODS_BENCH=%q: %v", v, err)
		}
	}
	modDir, err := filepath.Abs(filepath.Join("testdata", "realmods"))
	if err != nil {
		b.Fatal(err)
	}
	env := append(os.Environ(), "GOWORK=off", "GOPROXY=off", "GOFLAGS=-mod=mod")
	bin := buildInterleave(b)
	type row struct {
		module                 string
		goTest, def, hundred   time.Duration
		defBugs, hundredBugs   []string
		lost                   []string
		unknown                []string // reported by the default run, not listed as real
		defTests, hundredTests int
		defStopped             map[string]int
	}
	var rows []row
	for _, m := range realMods {
		if !only.MatchString(m.module) {
			continue
		}
		filter := func(args []string) []string {
			if m.run != "" {
				args = append(args, "-run", m.run)
			}
			if m.skip != "" {
				args = append(args, "-skip", m.skip)
			}
			return append(args, m.pkgs...)
		}
		run := func(name string, args ...string) (time.Duration, []byte) {
			cmd := exec.Command(name, args...)
			cmd.Dir, cmd.Env = modDir, env
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			d := time.Since(start)
			if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() > 1) {
				b.Logf("%s %s: %v\n%s", name, strings.Join(args, " "), err, lastLines(stderr.String(), 10))
			}
			return d, stdout.Bytes()
		}
		r := row{module: m.module}
		// The 100-schedule run first: it builds the instrumented tests, so that the default
		// run is timed as a user's second run is, from the build cache, as go test is.
		var out []byte
		r.hundred, out = run(bin, filter([]string{"test", "-json", "-instrument", m.module, "-schedules", "100", "-minimize", "0", "-saved=false"})...)
		r.hundredBugs, r.hundredTests, _ = bugsOf(out)
		r.def, out = run(bin, filter([]string{"test", "-json", "-instrument", m.module, "-minimize", "0", "-saved=false"})...)
		r.defBugs, r.defTests, r.defStopped = bugsOf(out)
		r.goTest, _ = run("go", filter([]string{"test", "-count=1"})...)
		for _, t := range r.hundredBugs {
			if !slices.Contains(r.defBugs, t) {
				r.lost = append(r.lost, t)
			}
		}
		for _, t := range r.defBugs {
			if m.real[t] == "" {
				r.unknown = append(r.unknown, t)
			}
		}
		b.Logf("%s: go test %.1fs, default %.1fs (%d tests, stopped %v), -schedules 100 %.1fs; bugs %v vs %v",
			m.module, r.goTest.Seconds(), r.def.Seconds(), r.defTests, r.defStopped, r.hundred.Seconds(), r.defBugs, r.hundredBugs)
		rows = append(rows, r)
	}
	var buf bytes.Buffer
	w := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "module\tgo test\tdefault\tratio\t-schedules 100\ttests\tbugs default\tbugs 100\tlost\tnot known real\tstopped (default)")
	var goTotal, defTotal, hundredTotal time.Duration
	var ratios []float64
	for _, r := range rows {
		goTotal, defTotal, hundredTotal = goTotal+r.goTest, defTotal+r.def, hundredTotal+r.hundred
		ratio := r.def.Seconds() / r.goTest.Seconds()
		ratios = append(ratios, ratio)
		fmt.Fprintf(w, "%s\t%.1fs\t%.1fs\t%.1f×\t%.1fs\t%d\t%d\t%d\t%s\t%s\t%s\n", r.module, r.goTest.Seconds(), r.def.Seconds(), ratio, r.hundred.Seconds(),
			r.defTests, len(r.defBugs), len(r.hundredBugs), strings.Join(r.lost, " "), strings.Join(r.unknown, " "), stoppedText(r.defStopped))
	}
	if len(rows) == 0 {
		b.Fatalf("INTERLEAVE_REALMODS_BENCH=%q matches no module of realMods", os.Getenv("INTERLEAVE_REALMODS_BENCH"))
	}
	sort.Float64s(ratios)
	fmt.Fprintf(w, "total\t%.1fs\t%.1fs\t%.1f×\t%.1fs\t\t\t\t\t\tmedian ratio %.1f×\n", goTotal.Seconds(), defTotal.Seconds(), defTotal.Seconds()/goTotal.Seconds(), hundredTotal.Seconds(), ratios[len(ratios)/2])
	w.Flush()
	fmt.Print(buf.String())
	b.ReportMetric(defTotal.Seconds()/goTotal.Seconds(), "default/gotest")
}

// bugsOf reads interleave test -json output: the top-level tests reported with a bug, the
// tests with a final event, and how many stopped for each reason.
func bugsOf(out []byte) (bugs []string, tests int, stopped map[string]int) {
	stopped = map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e struct {
			Action, Test, Stopped string
			Bug                   *struct{ Kind string }
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Test == "" {
			continue
		}
		switch e.Action {
		case "pass", "fail", "skip":
			tests++
			if e.Stopped != "" {
				stopped[e.Stopped]++
			}
			if e.Bug != nil {
				top, _, _ := strings.Cut(e.Test, "/")
				if !slices.Contains(bugs, top) {
					bugs = append(bugs, top)
				}
			}
		}
	}
	sort.Strings(bugs)
	return bugs, tests, stopped
}

func stoppedText(m map[string]int) string {
	var parts []string
	for _, k := range []string{"plateau", "time", "schedules", "bug", "exhausted", "limitation", "skipped"} {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	return strings.Join(parts, ", ")
}
