package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/base"
	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/store"
)

const racesUsage = `usage: interleave races [packages] [-run regexp] [-json]

Races prints the data races that the last interleave test run of each test found, from the
results store (.interleave/findings at the module root), grouped by the pair of source
locations: both accesses with their goroutines and stacks, like the race detector's report,
and how many schedules of which tests showed the race.

Packages are directories, with /... for every package below (default ./...). -run selects
tests by regexp. -json prints the groups as a JSON array.

Exit status: 0 when no race is listed, 1 when races are listed, 2 when the store cannot be
read.
`

// raceGroup is a pair of source locations that raced, with every test that showed it.
type raceGroup struct {
	Key   string          `json:"key"`
	Race  findings.Race   `json:"race"`
	Tests []raceGroupTest `json:"tests"`
}

type raceGroupTest struct {
	Package       string `json:"package"`
	Test          string `json:"test"`
	Schedules     int    `json:"schedules"`
	Explored      int    `json:"explored"`
	FirstSchedule int    `json:"firstSchedule"`
	Findings      string `json:"findings"`
}

func runRaces(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("races", stderr)
	fs.Usage = func() { fmt.Fprint(stderr, racesUsage) }
	run := fs.String("run", "", "select tests by `regexp`")
	asJSON := fs.Bool("json", false, "print JSON")
	// Flags and packages in any order, as go test takes them.
	var pkgs []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		pkgs = append(pkgs, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pkgs) == 0 {
		pkgs = []string{"./..."}
	}
	var runRE *regexp.Regexp
	if *run != "" {
		var err error
		if runRE, err = regexp.Compile(*run); err != nil {
			return fmt.Errorf("%w: -run: %v", errUsage, err)
		}
	}
	groups, docs, skipped, err := collectRaces(pkgs, runRE, stderr)
	if err != nil {
		return err
	}
	if *asJSON {
		if groups == nil {
			groups = []*raceGroup{}
		}
		b, _ := json.MarshalIndent(groups, "", "  ")
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		printRaces(stdout, groups, docs)
	}
	if skipped > 0 {
		// The races listed are kept; the status says the list may be incomplete.
		return fmt.Errorf("%d findings document(s) could not be read (named above): the races listed come from the others", skipped)
	}
	if len(groups) > 0 {
		return errBug
	}
	return nil
}

// collectRaces reads the findings of the packages' modules and groups their races. It returns
// the groups, the number of documents read, and the number that could not be read (each
// named on stderr).
func collectRaces(pkgs []string, runRE *regexp.Regexp, stderr io.Writer) (groups []*raceGroup, docs, skipped int, err error) {
	byKey := make(map[string]*raceGroup)
	var order []string
	seenErr := make(map[string]bool)
	seenDoc := make(map[string]bool)
	for _, pattern := range pkgs {
		dir, recursive := strings.CutSuffix(pattern, "/...")
		if pattern == "..." {
			dir, recursive = ".", true
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, 0, 0, err
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return nil, 0, 0, fmt.Errorf("%w: %s is not a package directory", errUsage, pattern)
		}
		root, module, ok := store.FindModule(abs)
		if !ok {
			return nil, 0, 0, fmt.Errorf("%s is not in a module: no go.mod in it or above", pattern)
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil {
			return nil, 0, 0, err
		}
		importPath := strings.TrimSuffix(module+"/"+filepath.ToSlash(rel), "/.")
		files, errs := findings.LoadAll(root)
		for _, err := range errs {
			if !seenErr[err.Error()] {
				seenErr[err.Error()] = true
				skipped++
				fmt.Fprintf(stderr, "interleave races: skipped: %v\n", err)
			}
		}
		for _, f := range files {
			p := f.Test.Package
			match := p == importPath || (recursive && strings.HasPrefix(p, importPath+"/"))
			if !match || (runRE != nil && !runRE.MatchString(f.Test.Name)) || seenDoc[f.Path] {
				continue
			}
			seenDoc[f.Path] = true
			docs++
			for _, r := range f.Races {
				key := r.Key()
				g := byKey[key]
				if g == nil {
					g = &raceGroup{Key: key, Race: r}
					byKey[key] = g
					order = append(order, key)
				}
				g.Tests = append(g.Tests, raceGroupTest{Package: p, Test: f.Test.Name, Schedules: r.Schedules,
					Explored: f.Schedules + f.DetectionSchedules, FirstSchedule: r.FirstSchedule, Findings: f.Path})
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i] < order[j] })
	out := make([]*raceGroup, len(order))
	for i, k := range order {
		out[i] = byKey[k]
	}
	return out, docs, skipped, nil
}

// printRaces prints the groups as the race detector prints its reports.
func printRaces(w io.Writer, groups []*raceGroup, docs int) {
	if docs == 0 {
		fmt.Fprintln(w, "no findings: run interleave test first")
		return
	}
	for _, g := range groups {
		r := g.Race
		fmt.Fprintln(w, "==================")
		fmt.Fprintln(w, "WARNING: DATA RACE")
		printAccess(w, r.B, "")
		printAccess(w, r.A, "Previous ")
		for _, t := range g.Tests {
			first := fmt.Sprintf("first in schedule %d", t.FirstSchedule)
			if t.FirstSchedule == 0 {
				first = "only in the race-detection phase"
			}
			fmt.Fprintf(w, "Seen in %s of %s schedules of %s (%s), %s\n", base.Thousands(t.Schedules), base.Thousands(t.Explored), t.Test, t.Package, first)
		}
		fmt.Fprintln(w, "==================")
	}
	tests := make(map[string]bool)
	for _, g := range groups {
		for _, t := range g.Tests {
			tests[t.Package+"."+t.Test] = true
		}
	}
	fmt.Fprintf(w, "Found %d data race(s) in %d of %d test(s).\n", len(groups), len(tests), docs)
}

func printAccess(w io.Writer, a findings.Access, prefix string) {
	op := strings.ToUpper(a.Op[:1]) + a.Op[1:]
	if prefix != "" {
		op = a.Op
	}
	fmt.Fprintf(w, "%s%s at %s by goroutine G%d:\n", prefix, op, a.Pos, a.Goroutine)
	if len(a.Stack) == 0 {
		fmt.Fprintln(w, "  (stack not recovered)")
	}
	for _, fr := range a.Stack {
		fmt.Fprintf(w, "  %s()\n      %s:%d\n", fr.Func, fr.File, fr.Line)
	}
	if a.Created != "" {
		fmt.Fprintf(w, "  G%d was started at %s\n", a.Goroutine, a.Created)
	} else {
		fmt.Fprintf(w, "  G%d is the test body\n", a.Goroutine)
	}
	fmt.Fprintln(w)
}

func init() {
	commands = append(commands, command{"races", "[packages] [-run regexp]", "print the data races that the last runs found", runRaces})
}
