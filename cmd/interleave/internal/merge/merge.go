// Package merge is interleave merge: it combines the results stores of the shards of one
// interleave test -shard run, of CI jobs or of machines into one store.
package merge

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/atomicfile"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/base"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/report"
	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/store"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// Args and Summary are the command's arguments and what it does, for interleave's usage.
const (
	Args    = "[-o dir] [-force] [-sarif file] [-junit file] store..."
	Summary = "merge the results stores of shards or CI jobs into one"
)

const mergeUsage = `usage: interleave merge [-o dir] [-force] [-sarif file] [-junit file] store...

Merge combines results stores — the .interleave directories of the shards of one
interleave test -shard run, of CI jobs, or of machines — into the store of the module at -o
(default: the module of the current directory), which the language server and interleave
races then read. Each store is a .interleave directory, or a directory that has one.

For each test, the findings documents are merged: schedules explored summed, data races
deduplicated by their pair of source locations with the schedules that showed them added,
bugs kept. Schedule files are copied, once per content. The latest run summary of each store
is merged into one summary (its tests' counts summed); the others are copied as they are.

-sarif and -junit write the merged run's results as interleave test -sarif and -junit
do (for a CI job that reports the shards as one run): its bugs, with the copied schedule
files, and the merged data races.

Stores of runs that explored differently — another build of the code, strategy, parameters,
seed, budget or scheduling points — are refused with what differs, and nothing is written,
unless -force.

Exit status: 0 merged, 2 refused or failed.
`

// mergeStats says what a merge did.
type mergeStats struct {
	tests, races, bugs, sharedRaces int
	schedules, duplicates           int
	runs                            int
	summary                         *report.Summary // the merged run, nil when no store has one
}

// Run runs interleave merge with the command-line arguments args.
func Run(args []string, stdout, stderr io.Writer) error {
	fs := base.NewFlagSet("merge", stderr)
	fs.Usage = func() { fmt.Fprint(stderr, mergeUsage) }
	outDir := fs.String("o", "", "the module `dir`ectory whose store receives the merge (default: the current directory's module)")
	force := fs.Bool("force", false, "merge stores of runs that explored differently")
	sarifOut := fs.String("sarif", "", "write the merged run's results to `file` as SARIF 2.1.0")
	junitOut := fs.String("junit", "", "write the merged run's results to `file` as JUnit XML")
	args0 := slices.Clone(args)
	var inputs []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		inputs = append(inputs, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(inputs) == 0 {
		return fmt.Errorf("%w: no store to merge", base.ErrUsage)
	}
	root := *outDir
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		r, _, ok := store.FindModule(wd)
		if !ok {
			return fmt.Errorf("%s is in no Go module: say where the merged store goes with -o", wd)
		}
		root = r
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	var stores []string
	for _, in := range inputs {
		s, err := storeDir(in)
		if err != nil {
			return err
		}
		stores = append(stores, s)
	}
	if (*sarifOut != "" || *junitOut != "") && !slices.ContainsFunc(stores, hasRuns) {
		return fmt.Errorf("-sarif and -junit report the merged run, and none of the stores has a run summary (runs/): nothing was merged")
	}
	started := time.Now()
	st, err := mergeStores(stores, root, *force)
	if err != nil {
		return err
	}
	if st.summary != nil {
		// The reports of the merged run, as interleave test writes them for one run.
		sum := st.summary
		f := &report.Config{Strategy: sum.Strategy, Params: sum.Params, Seed: sum.Seed, Schedules: sum.Schedules, Races: "report"}
		failed := false
		for _, o := range sum.Tests {
			if o.Result != nil && f.Points == "" {
				f.Points = o.Result.Points
			}
			failed = failed || o.Err != "" || (o.Result != nil && o.Result.Bug != nil)
		}
		if *junitOut != "" {
			if err := report.WriteJUnit(*junitOut, report.JUnit(f, sum.Tests, started)); err != nil {
				return fmt.Errorf("merged, but %w", err)
			}
		}
		if *sarifOut != "" {
			command := append([]string{"interleave", "merge"}, args0...)
			if err := report.WriteSARIF(*sarifOut, report.SARIF(f, sum.Tests, root, command, !failed)); err != nil {
				return fmt.Errorf("merged, but %w", err)
			}
		}
	}
	fmt.Fprintf(stdout, "merged %d store(s) into %s: %d test(s), %d data race(s) (%d seen by more than one store), %d bug(s); %d schedule file(s) copied, %d already there; %d run summar(ies)\n",
		len(stores), filepath.Join(root, findings.StoreDir), st.tests, st.races, st.sharedRaces, st.bugs, st.schedules, st.duplicates, st.runs)
	return nil
}

// hasRuns says whether the store has a run summary.
func hasRuns(store string) bool {
	all, _ := filepath.Glob(filepath.Join(store, "runs", "*.json"))
	return len(all) > 0
}

// storeDir finds the results store of a command-line argument: a .interleave directory (one
// with findings/, schedules/ or runs/), or a directory that has one.
func storeDir(arg string) (string, error) {
	abs, err := filepath.Abs(arg)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", fmt.Errorf("%s: not a directory", arg)
	}
	isStore := func(d string) bool {
		for _, sub := range []string{"findings", "schedules", "runs"} {
			if st, err := os.Stat(filepath.Join(d, sub)); err == nil && st.IsDir() {
				return true
			}
		}
		return false
	}
	if nested := filepath.Join(abs, findings.StoreDir); isStore(nested) {
		return nested, nil
	}
	if isStore(abs) {
		return abs, nil
	}
	return "", fmt.Errorf("%s: not a results store (no findings/, schedules/ or runs/ in it or in its %s/)", arg, findings.StoreDir)
}

// mergeStores merges the stores into the store of the module at root. Everything is read and
// checked before anything is written.
func mergeStores(stores []string, root string, force bool) (*mergeStats, error) {
	st := &mergeStats{}
	out := filepath.Join(root, findings.StoreDir)
	// Findings, by test.
	type docRef struct {
		doc   *findings.File
		store int
	}
	byTest := map[findings.Test][]docRef{}
	var tests []findings.Test
	var problems []string
	for i, s := range stores {
		paths, _ := filepath.Glob(filepath.Join(s, "findings", "*.json"))
		sort.Strings(paths)
		for _, p := range paths {
			d, err := findings.Load(p)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			if _, ok := byTest[d.Test]; !ok {
				tests = append(tests, d.Test)
			}
			byTest[d.Test] = append(byTest[d.Test], docRef{d, i})
		}
	}
	merged := map[findings.Test]*findings.File{}
	for _, t := range tests {
		var docs []*findings.File
		for _, r := range byTest[t] {
			docs = append(docs, r.doc)
		}
		m, err := findings.Merge(docs, force)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		merged[t] = m
	}
	// The latest run of each store.
	runs, runProblems := latestRuns(stores, force)
	problems = append(problems, runProblems...)
	if len(problems) > 0 {
		return nil, fmt.Errorf("nothing was merged:\n\t%s", strings.Join(problems, "\n\t"))
	}
	// Schedule files, once per content; the bugs name the copies.
	schedDir, err := store.ScheduleDir(root)
	if err != nil {
		return nil, err
	}
	copied, err := copyByContent(stores, "schedules", schedDir, st)
	if err != nil {
		return nil, err
	}
	for _, t := range tests {
		m := merged[t]
		for i, b := range m.Bugs {
			if b.Schedule == "" {
				continue
			}
			for si := range stores {
				if p, ok := copied[copyKey{si, filepath.Base(b.Schedule)}]; ok {
					m.Bugs[i].Schedule = p
					break
				}
			}
		}
		// Two stores' bugs that name the same schedule, now one file, are one bug.
		m.Bugs = slices.CompactFunc(m.Bugs, func(a, b findings.Bug) bool { return a == b })
		if err := m.Save(root); err != nil {
			return nil, err
		}
		st.tests++
		st.races += len(m.Races)
		st.bugs += len(m.Bugs)
		for _, r := range m.Races {
			stores := 0
			for _, ref := range byTest[t] {
				for _, x := range ref.doc.Races {
					if x.Key() == r.Key() {
						stores++
						break
					}
				}
			}
			if stores > 1 {
				st.sharedRaces++
			}
		}
	}
	// Run summaries: every one copied, and the latest ones merged.
	runsDir := filepath.Join(out, "runs")
	var scratch mergeStats
	if _, err := copyByContent(stores, "runs", runsDir, &scratch); err != nil {
		return nil, err
	}
	if len(runs) > 0 {
		// The merged findings of each test, by package and name (a document's test also
		// names its module and build).
		byName := map[[2]string]*findings.File{}
		for t, m := range merged {
			byName[[2]string{t.Package, t.Name}] = m
		}
		sum := mergeRuns(runs)
		for i := range sum.Tests {
			if e := sum.Tests[i].Result; e != nil {
				if m := byName[[2]string{e.Package, e.Test}]; m != nil {
					e.Findings, e.Races = m.Path, len(m.Races)
				}
				if e.Bug != nil && e.Bug.Schedule != "" {
					for si := range stores {
						if p, ok := copied[copyKey{si, filepath.Base(e.Bug.Schedule)}]; ok {
							e.Bug.Schedule = p
							break
						}
					}
				}
			}
		}
		st.summary = sum
		if len(runs) > 1 {
			if _, err := sum.Save(runsDir); err != nil {
				return nil, err
			}
			st.runs = 1
		}
	}
	return st, nil
}

type copyKey struct {
	store int
	name  string
}

// copyByContent copies the .json files of sub/ of each store into dst, skipping those whose
// content is there already (under any name), and returns where each one is now.
func copyByContent(stores []string, sub, dst string, st *mergeStats) (map[copyKey]string, error) {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	have := map[[32]byte]string{}
	existing, _ := filepath.Glob(filepath.Join(dst, "*.json"))
	for _, p := range existing {
		if b, err := os.ReadFile(p); err == nil {
			have[sha256.Sum256(b)] = p
		}
	}
	where := map[copyKey]string{}
	for i, s := range stores {
		paths, _ := filepath.Glob(filepath.Join(s, sub, "*.json"))
		sort.Strings(paths)
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, fmt.Errorf("merge: %w", err)
			}
			sum := sha256.Sum256(b)
			if at, ok := have[sum]; ok {
				where[copyKey{i, filepath.Base(p)}] = at
				st.duplicates++
				continue
			}
			name := filepath.Base(p)
			target := filepath.Join(dst, name)
			for n := 2; ; n++ {
				if _, err := os.Stat(target); errors.Is(err, os.ErrNotExist) {
					break
				}
				target = filepath.Join(dst, fmt.Sprintf("%s-%d.json", strings.TrimSuffix(name, ".json"), n))
			}
			if err := atomicfile.Write(target, b); err != nil {
				return nil, fmt.Errorf("merge: %w", err)
			}
			have[sum] = target
			where[copyKey{i, name}] = target
			st.schedules++
		}
	}
	return where, nil
}

// latestRuns reads the latest run summary of each store, and checks that they are of one
// exploration (strategy, parameters, budget, seed, tests selected).
func latestRuns(stores []string, force bool) ([]*report.Summary, []string) {
	var runs []*report.Summary
	var paths []string
	var problems []string
	for _, s := range stores {
		all, _ := filepath.Glob(filepath.Join(s, "runs", "*.json"))
		if len(all) == 0 {
			continue
		}
		sort.Strings(all)
		p := all[len(all)-1]
		b, err := os.ReadFile(p)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		r, err := report.DecodeSummary(b, p)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		runs = append(runs, r)
		paths = append(paths, p)
	}
	if force {
		return runs, problems
	}
	for i := 1; i < len(runs); i++ {
		a, b := runs[0], runs[i]
		for _, c := range []struct{ field, x, y string }{
			{"strategy", a.Strategy, b.Strategy},
			{"strategy parameters", fmt.Sprint(a.Params), fmt.Sprint(b.Params)},
			{"schedule budget", fmt.Sprint(a.Schedules), fmt.Sprint(b.Schedules)},
			{"seed", fmt.Sprint(a.Seed), fmt.Sprint(b.Seed)},
			{"-run", a.Run, b.Run},
		} {
			if c.x != c.y {
				problems = append(problems, fmt.Sprintf("the runs differ in %s: %q in %s, %q in %s; merging them would mix two explorations (merge -force merges them anyway)", c.field, c.x, paths[0], c.y, paths[i]))
			}
		}
	}
	return runs, problems
}

// mergeRuns makes one summary of the latest runs of the stores: each test's results combined
// as the results of one test's worker processes are (report.CombineParts).
func mergeRuns(runs []*report.Summary) *report.Summary {
	first := runs[0]
	sum := &report.Summary{Version: 1, Time: time.Now().UTC(), Origin: "merge", Packages: first.Packages, Run: first.Run,
		Strategy: first.Strategy, Params: first.Params, Schedules: first.Schedules, Seed: first.Seed}
	type key struct{ pkg, test string }
	var order []key
	byTest := map[key][]*report.Part{}
	var parts []string
	for _, r := range runs {
		parts = append(parts, r.Part)
		for _, o := range r.Tests {
			k := key{o.Package, o.Test}
			if _, ok := byTest[k]; !ok {
				order = append(order, k)
			}
			pr := &report.Part{Event: o.Result}
			if p, err := strategy.ParsePart(r.Part); err == nil {
				pr.Part = p
			}
			if o.Err != "" {
				pr.Err = errors.New(o.Err)
			}
			byTest[k] = append(byTest[k], pr)
		}
	}
	sum.Part = findings.UnionOfParts(parts)
	for _, k := range order {
		o := report.Outcome{Package: k.pkg, Test: k.test}
		var results []*report.Part
		for _, pr := range byTest[k] {
			if pr.Event == nil && pr.Err == nil {
				continue
			}
			results = append(results, pr)
		}
		if len(results) == 0 {
			continue
		}
		e, err := report.CombineParts(results, false)
		if err != nil {
			o.Err = err.Error()
		} else {
			e.Package, e.Test = k.pkg, k.test
			o.Result = e
		}
		sum.Tests = append(sum.Tests, o)
	}
	return sum
}
