// Package merge is interleave merge: it combines the results stores of the shards of one
// interleave test -shard run, of CI jobs or of machines into one store.
package merge

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

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
is merged into one summary (its tests' counts summed); the others are copied, their paths
made the merged store's. A store given twice — by two paths, through a link, or two stores
with the same content — is merged once, and so is a document found in two stores.

A store comes from another machine, and is trusted for nothing: every document of it is read
and checked before anything is written — each .json file of findings/, runs/ and schedules/
must be a regular file (not a symbolic link, a device, a FIFO or a directory) that decodes as
what its directory holds, and every schedule a bug names must be one of its own store's
schedule files (it is then named by its copy; a path elsewhere, such as /etc/passwd, is not
kept). A store that fails any check is refused, with the path of every file that failed, and
nothing is written: a merge never leaves out part of a shard's results silently. The merged
documents are written into a temporary directory beside the destination store (.interleave.merge-*)
and renamed into it at the end, so that a merge that fails leaves the destination as it was.

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
	var dirs []string
	for _, in := range inputs {
		s, err := storeDir(in)
		if err != nil {
			return err
		}
		dirs = append(dirs, s)
	}
	// Every document of every store is read and checked before anything is written.
	var stores []*input
	var problems []string
	seen := map[[32]byte]string{}
	for _, d := range dirs {
		in, p := readStore(d)
		problems = append(problems, p...)
		if in == nil {
			continue
		}
		if first, ok := seen[in.hash]; ok {
			// The same store twice — by two paths, through a link, or copied: merged once.
			fmt.Fprintf(stderr, "interleave merge: %s has the same content as %s: merged once\n", d, first)
			continue
		}
		seen[in.hash] = d
		stores = append(stores, in)
	}
	if len(problems) > 0 {
		return fmt.Errorf("nothing was merged:\n\t%s", strings.Join(problems, "\n\t"))
	}
	if (*sarifOut != "" || *junitOut != "") && !slices.ContainsFunc(stores, func(in *input) bool { return len(in.runs) > 0 }) {
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
		f := &report.Config{Strategy: sum.Strategy, Params: sum.Params, Seed: sum.Seed, Schedules: sum.Schedules, Races: "report", Interrupted: sum.Interrupted}
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

// storeDir finds the results store of a command-line argument: a .interleave directory (one
// with findings/, schedules/ or runs/), or a directory that has one. The argument may be a
// symbolic link, as the user gave it; what is inside it is not followed (readStore).
func storeDir(arg string) (string, error) {
	abs, err := filepath.Abs(arg)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", fmt.Errorf("%s: not a directory", arg)
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return "", err
	}
	isStore := func(d string) bool {
		if st, err := os.Lstat(d); err != nil || !st.IsDir() {
			return false
		}
		for _, sub := range []string{"findings", "schedules", "runs"} {
			if st, err := os.Lstat(filepath.Join(d, sub)); err == nil && st.IsDir() {
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

// latestRuns takes the latest run summary of each store (one met twice, the same content in
// two stores, counts once), and checks that they are of one exploration (strategy,
// parameters, budget, seed, tests selected).
func latestRuns(stores []*input, force bool) ([]*report.Summary, []string) {
	var runs []*report.Summary
	var paths []string
	var problems []string
	seen := map[[32]byte]bool{}
	for _, in := range stores {
		if len(in.runs) == 0 {
			continue
		}
		d := in.runs[len(in.runs)-1]
		if seen[d.hash] {
			continue
		}
		seen[d.hash] = true
		runs = append(runs, d.v)
		paths = append(paths, filepath.Join(in.dir, "runs", d.name))
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
	interrupted := map[key]bool{} // a store's run a signal stopped before the test's end
	for _, r := range runs {
		parts = append(parts, r.Part)
		if sum.Interrupted == "" {
			sum.Interrupted = r.Interrupted
		}
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
			interrupted[k] = interrupted[k] || o.Interrupted
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
			// Incomplete where a store's run was interrupted, unless another found a bug.
			o.Err, o.Interrupted = err.Error(), interrupted[k]
		} else {
			e.Package, e.Test = k.pkg, k.test
			o.Result = e
		}
		o.Status, o.Reason = report.StatusOf(o)
		sum.Tests = append(sum.Tests, o)
	}
	return sum
}
