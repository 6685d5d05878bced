// Package verify is interleave verify: it checks a fix. For every selected test that has
// saved schedules (committed in testdata/interleave/<Test>/ or in the results store), it
// replays each of them, then explores the test afresh with the strategy and seed that found
// its bug and at least as many schedules as that took, and reports per schedule: still
// fails, fixed (replayed clean, and N fresh schedules clean), or changed (the program no
// longer follows the schedule: where, and what the fresh schedules found).
package verify

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/base"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/test"
	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/instrument"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/store"
)

// Args and Summary are the command's arguments and what it does, for interleave's usage.
const (
	Args    = "[-run regexp] [-schedules N] [packages]"
	Summary = "check a fix: replay the saved schedules, then explore as when the bug was found"
)

const usage = `usage: interleave verify [-run regexp] [-schedules N] [-json] [packages]

Packages are directories: ".", "./pkg", "./...".

Verify checks a fix. For every test of the packages (default: the current directory's) that
has saved schedules — committed in testdata/interleave/<TestName>/ of its package, or in the
results store (.interleave/schedules) — it replays each schedule, then explores the test
afresh with the strategy and seed that found its bug, and at least as many schedules as that
took (-schedules raises it). It reports, per schedule: still fails; fixed (replayed clean, and
N fresh schedules clean); or changed (the program no longer follows the schedule: where).
The exit status is 1 when a bug is still there (a saved schedule fails, or the exploration
finds one), 0 otherwise.

Flags:
  -run regexp    the tests to verify (default: every test with saved schedules)
  -schedules N   fresh schedules at least (default 10000, or the schedules the bug took if more)
  -json          print one JSON object per test
`

// Outcome is the verdict on one test.
type Outcome struct {
	Package string `json:"Package"`
	Test    string `json:"Test"`
	// Saved are the outcomes of its saved schedules (explore.SavedOutcome: "fails", "fixed",
	// "diverged").
	Saved []explore.SavedOutcome `json:"Saved"`
	// Strategy, Seed and Schedules are the fresh exploration's; Bug what it found (nil: none).
	Strategy  string            `json:"Strategy"`
	Seed      uint64            `json:"Seed"`
	Schedules int               `json:"Schedules"`
	Bug       *explore.EventBug `json:"Bug,omitempty"`
	// Verdict is "fixed", "still fails" or "changed" (no saved schedule replayed either way,
	// and the exploration found no bug).
	Verdict string `json:"Verdict"`
}

// Run runs interleave verify.
func Run(args []string, stdout, stderr io.Writer) error {
	fset := base.NewFlagSet("verify", stderr)
	fset.Usage = func() { fmt.Fprint(stderr, usage) }
	run := fset.String("run", "", "the tests to verify (`regexp`)")
	least := fset.Int("schedules", 10000, "fresh schedules at least (`N`)")
	asJSON := fset.Bool("json", false, "print one JSON object per test")
	if err := fset.Parse(args); err != nil {
		return err
	}
	if *least < 1 {
		return fmt.Errorf("%w: -schedules %d: want at least 1", base.ErrUsage, *least)
	}
	var runRE *regexp.Regexp
	if *run != "" {
		var err error
		if runRE, err = regexp.Compile(*run); err != nil {
			return fmt.Errorf("%w: -run %q: %v", base.ErrUsage, *run, err)
		}
	}
	pkgs := fset.Args()
	if len(pkgs) == 0 {
		pkgs = []string{"."}
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	root, _, ok := store.FindModule(wd)
	if !ok {
		return fmt.Errorf("verify: no go.mod in %s or above", wd)
	}
	tests, err := savedTests(root, pkgs, runRE)
	if err != nil {
		return err
	}
	if len(tests) == 0 {
		fmt.Fprintf(stderr, "interleave verify: no saved schedule for the selected tests: nothing to verify (interleave test saves a bug's schedule; interleave keep commits it)\n")
		return nil
	}
	bug := false
	for _, st := range tests {
		o, err := verifyTest(root, st, *least, stderr)
		if err != nil {
			return err
		}
		if o.Verdict == "still fails" {
			bug = true
		}
		if *asJSON {
			b, _ := json.Marshal(o)
			fmt.Fprintf(stdout, "%s\n", b)
		} else {
			write(stdout, wd, o)
		}
	}
	if bug {
		return base.ErrBug
	}
	return nil
}

// savedTest is a test with saved schedules: the package directory, the package, the test,
// and one of its schedule files (the newest), whose strategy and budget the exploration takes.
type savedTest struct {
	dir, pkg, name string
	files          []*schedule.File
}

// savedTests finds the tests with saved schedules in the results store of the module at root
// and in the committed corpora of the packages' directories.
func savedTests(root string, pkgs []string, run *regexp.Regexp) ([]*savedTest, error) {
	byKey := map[string]*savedTest{}
	var order []string
	add := func(dir string, f *schedule.File) {
		if f.Bug == nil || run != nil && !run.MatchString(strings.SplitN(f.Test.Name, "/", 2)[0]) {
			return
		}
		key := f.Test.Package + "\x00" + f.Test.Name
		st := byKey[key]
		if st == nil {
			st = &savedTest{dir: dir, pkg: f.Test.Package, name: f.Test.Name}
			byKey[key] = st
			order = append(order, key)
		}
		st.files = append(st.files, f)
	}
	for _, pattern := range pkgs {
		recursive := strings.HasSuffix(pattern, "/...")
		base := filepath.FromSlash(strings.TrimSuffix(strings.TrimSuffix(pattern, "..."), "/"))
		if base == "" {
			base = "."
		}
		if !filepath.IsAbs(base) {
			wd, err := os.Getwd()
			if err != nil {
				return nil, err
			}
			base = filepath.Join(wd, base)
		}
		glob := filepath.Join(base, filepath.FromSlash(explore.CorpusDir), "*", "*.json")
		var corpus []string
		if recursive {
			filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") && strings.Contains(filepath.ToSlash(p), "/"+explore.CorpusDir+"/") {
					corpus = append(corpus, p)
				}
				return nil
			})
		} else {
			corpus, _ = filepath.Glob(glob)
		}
		sort.Strings(corpus)
		for _, p := range corpus {
			if f, err := schedule.Load(p); err == nil {
				dir, _, _ := strings.Cut(p, string(filepath.Separator)+filepath.FromSlash(explore.CorpusDir)+string(filepath.Separator))
				add(dir, f)
			}
		}
		// The store's schedules of the packages under base.
		local, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(findings.SchedulesDir), "*.json"))
		sort.Strings(local)
		for _, p := range local {
			if strings.HasSuffix(p, ".found.json") {
				continue
			}
			f, err := schedule.Load(p)
			if err != nil || f.Test.Module == "" {
				continue
			}
			rel := strings.TrimPrefix(strings.TrimPrefix(f.Test.Package, f.Test.Module), "/")
			dir := filepath.Join(root, filepath.FromSlash(rel))
			if dir == base || recursive && strings.HasPrefix(dir, base+string(filepath.Separator)) {
				add(dir, f)
			}
		}
	}
	out := make([]*savedTest, 0, len(order))
	for _, k := range order {
		out = append(out, byKey[k])
	}
	return out, nil
}

// foundWith returns the strategy, seed and schedules that found the bug of f: a minimized
// schedule's are those of the schedule it was minimized from. The seed is 0 when f does not
// record it (the default seed is then used).
func foundWith(f *schedule.File) (name string, seed uint64, schedules int) {
	name, params := f.Strategy.Name, f.Strategy.Params
	schedules = f.Execution
	if name == "minimize" || name == "replay" {
		key := "from"
		if name == "replay" {
			key = "of"
		}
		inner := map[string]string{}
		for k, v := range params {
			if rest, ok := strings.CutPrefix(k, key+"."); ok {
				inner[rest] = v
			}
		}
		name, params = params[key], inner
		if n, err := strconv.Atoi(params["execution"]); err == nil {
			schedules = max(schedules, n)
		}
	}
	if s, err := strconv.ParseUint(params["seed"], 10, 64); err == nil {
		seed = s
	}
	return name, seed, schedules
}

// builtAs returns the interleave test flags that build a test as its schedule files were
// found: -instrument with every module one of them records, and the build flags of the
// newest that records any. A flag that could run a program is refused, naming its file.
func builtAs(files []*schedule.File) ([]string, error) {
	var modules, flags []string
	seen := map[string]bool{}
	for _, f := range files {
		if err := instrument.CheckRecordedFlags(f.Test.Package+" "+f.Test.Name, f.BuildFlags); err != nil {
			return nil, err
		}
		for _, m := range f.Instrument {
			if !seen[m] {
				seen[m] = true
				modules = append(modules, m)
			}
		}
		if flags == nil && len(f.BuildFlags) > 0 {
			flags = f.BuildFlags
		}
	}
	var out []string
	if len(modules) > 0 {
		out = append(out, "-instrument", strings.Join(modules, ","))
	}
	return append(out, flags...), nil
}

// verifyTest runs interleave test on one test: its saved schedules replayed first, then the
// exploration with the strategy, seed and budget that found its bug.
func verifyTest(root string, st *savedTest, least int, stderr io.Writer) (*Outcome, error) {
	o := &Outcome{Package: st.pkg, Test: st.name, Schedules: least}
	for _, f := range st.files {
		name, seed, n := foundWith(f)
		if o.Strategy == "" && name != "" {
			o.Strategy, o.Seed = name, seed
		}
		o.Schedules = max(o.Schedules, n)
	}
	args := []string{st.dir, "-json", "-run", "^" + regexp.QuoteMeta(strings.SplitN(st.name, "/", 2)[0]) + "$",
		"-schedules", strconv.Itoa(o.Schedules), "-minimize", "0"}
	// Built as the schedules were found: with the modules they were found instrumenting
	// (-instrument) and the build flags they record (only flags that run nothing), or a
	// schedule through an instrumented module diverges where it enters the module.
	build, err := builtAs(st.files)
	if err != nil {
		return nil, fmt.Errorf("verify %s (%s): %w", st.name, st.pkg, err)
	}
	args = append(args, build...)
	if o.Strategy != "" {
		args = append(args, "-strategy", o.Strategy)
	}
	if o.Seed != 0 {
		args = append(args, "-seed", strconv.FormatUint(o.Seed, 10))
	}
	var out, errOut bytes.Buffer
	err = test.Run(args, &out, &errOut)
	if err != nil && !errors.Is(err, base.ErrBug) {
		return nil, fmt.Errorf("verify %s (%s): %w\n%s", st.name, st.pkg, err, errOut.String())
	}
	var final *test.JSONEvent
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e test.JSONEvent
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Test == st.name && (e.Action == "pass" || e.Action == "fail") {
			final = &e
		}
	}
	if final == nil {
		return nil, fmt.Errorf("verify %s (%s): no result\n%s", st.name, st.pkg, errOut.String())
	}
	o.Saved = final.SavedSchedules
	o.Bug = final.Bug
	if final.Schedules != nil && final.SavedFailing == 0 {
		o.Schedules = *final.Schedules
	}
	fixed := 0
	for _, s := range o.Saved {
		if s.Outcome == "fixed" {
			fixed++
		}
	}
	switch {
	case final.SavedFailing > 0 || o.Bug != nil:
		o.Verdict = "still fails"
	case fixed > 0:
		o.Verdict = "fixed"
	default:
		o.Verdict = "changed"
	}
	return o, nil
}

// write prints the verdict on one test, a line per saved schedule.
func write(w io.Writer, wd string, o *Outcome) {
	rel := func(p string) string {
		if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return p
	}
	fmt.Fprintf(w, "%s (%s): %s\n", o.Test, o.Package, o.Verdict)
	for _, s := range o.Saved {
		what := map[string]string{"fails": "still fails", "fixed": "fixed", "diverged": "changed"}[s.Outcome]
		fmt.Fprintf(w, "    %s: %s: %s\n", rel(s.Schedule), what, s.Detail)
	}
	strat := o.Strategy
	if strat == "" {
		strat = "the default strategy"
	}
	seed := "the default seed"
	if o.Seed != 0 {
		seed = "seed " + strconv.FormatUint(o.Seed, 10)
	}
	switch {
	case o.Bug != nil && len(o.Saved) > 0 && o.Saved[len(o.Saved)-1].Outcome == "fails":
		fmt.Fprintf(w, "    not explored: a saved schedule still fails (%s at %s)\n", o.Bug.Kind, o.Bug.Position)
	case o.Bug != nil:
		fmt.Fprintf(w, "    explored (%s, %s): %s at %s, schedule %s\n", strat, seed, o.Bug.Kind, o.Bug.Position, rel(o.Bug.Schedule))
	default:
		fmt.Fprintf(w, "    explored (%s, %s): %s fresh schedules clean\n", strat, seed, strconv.Itoa(o.Schedules))
	}
}
