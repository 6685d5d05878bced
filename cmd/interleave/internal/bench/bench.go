// Package bench is the data side of interleave bench: it knows the techniques of the SCTBench
// comparison (Thomson, Donaldson and Betts, "Concurrency Testing Using Controlled Schedulers:
// An Empirical Study", seed 004) and the strategies the project adds to them, the benchmarks of
// SCTBench-Go (testdata/sctbench), the published numbers of Tables III and IV, and what one run
// of the suite produced; it renders that run as Markdown and TSV tables with the paper's
// numbers beside ours, draws the cumulative plot of the study's Figure 4, and reads the output
// of the uninstrumented ("native", PERIOD's Table 1, seed 003) runs.
//
// Running the benchmarks is the command's job (cmd/interleave, bench.go); this package does no
// process handling, so that everything here can be tested on fixed data.
package bench

import (
	"fmt"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/interleave-dev/interleave/engine/strategy"
)

// DefaultLimit is the default schedule limit of a cell. The study used 100,000 (§5); 10,000
// is the limit of its conference version and of PERIOD's evaluation (seed 003, §4.1).
const DefaultLimit = 10_000

// PaperLimit is the study's schedule limit, what an "L" in the published tables stands for.
const PaperLimit = 100_000

// Kind says how a technique's results are read.
type Kind int

const (
	// Randomized techniques have no notion of the search ending (§6.3, "Results for
	// non-systematic techniques"): schedules to first bug and buggy schedules out of the limit,
	// and the average schedules per bug, limit / buggy (§5, "Notes on randomization").
	Randomized Kind = iota
	// Systematic techniques keep their search state and may explore their whole space
	// (Table III, DFS): schedules explored, and the share of buggy schedules.
	Systematic
	// Iterative techniques are the systematic ones with an increasing bound (IPB, IDB, §5):
	// also the bound reached and the schedules explored at that bound.
	Iterative
)

// Technique is one column group of the tables: a strategy with fixed parameters.
type Technique struct {
	// Key names the technique on the command line and in the TSV (rand, pct3, ipb, ...).
	Key string
	// Label is its name in tables and on the plot, as the paper writes it ("PCT d=3").
	Label    string
	Strategy string
	Params   map[string]string
	Kind     Kind
	// Paper is the prefix of its columns in the published TSVs ("pct3" for pct3_first_bug);
	// empty when the study did not evaluate it.
	Paper string
}

// StrategyArg is the technique's strategy as INTERLEAVE_STRATEGY takes it ("pct:d=3").
func (t Technique) StrategyArg() string {
	if len(t.Params) == 0 {
		return t.Strategy
	}
	keys := make([]string, 0, len(t.Params))
	for k := range t.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var kv []string
	for _, k := range keys {
		kv = append(kv, k+"="+t.Params[k])
	}
	return t.Strategy + ":" + strings.Join(kv, ",")
}

// strideLengthP is the target probability of the length-based stride variant, the paper's p2
// (seed 000, §V-A): any two independent least likely ordering edges covered in one of 9,900
// executions with confidence 0.99.
var strideLengthP = strconv.FormatFloat(strategy.StrideTargetProbability(0.99, 9900, 2), 'g', -1, 64)

// Techniques lists every technique interleave bench runs, in table order: the study's seven
// (Tables III and IV) first, then the project's others.
var Techniques = []Technique{
	{Key: "ipb", Label: "IPB", Strategy: "ipb", Kind: Iterative, Paper: "ipb"},
	{Key: "idb", Label: "IDB", Strategy: "idb", Kind: Iterative, Paper: "idb"},
	{Key: "dfs", Label: "DFS", Strategy: "dfs", Kind: Systematic, Paper: "dfs"},
	{Key: "period", Label: "PERIOD", Strategy: "period", Kind: Systematic},
	{Key: "rand", Label: "Rand", Strategy: "random", Kind: Randomized, Paper: "rand"},
	{Key: "pct1", Label: "PCT d=1", Strategy: "pct", Params: map[string]string{"d": "1"}, Kind: Randomized, Paper: "pct1"},
	{Key: "pct2", Label: "PCT d=2", Strategy: "pct", Params: map[string]string{"d": "2"}, Kind: Randomized, Paper: "pct2"},
	{Key: "pct3", Label: "PCT d=3", Strategy: "pct", Params: map[string]string{"d": "3"}, Kind: Randomized, Paper: "pct3"},
	{Key: "pos", Label: "POS", Strategy: "pos", Kind: Randomized},
	{Key: "rapos", Label: "RAPOS", Strategy: "rapos", Kind: Randomized},
	{Key: "stride", Label: "stride smax=2", Strategy: "stride", Params: map[string]string{"smax": "2"}, Kind: Randomized},
	{Key: "stridel", Label: "stride p2", Strategy: "stride", Params: map[string]string{"p": strideLengthP}, Kind: Randomized},
	{Key: "greybox", Label: "greybox", Strategy: "greybox", Kind: Randomized},
	{Key: "portfolio", Label: "portfolio", Strategy: "portfolio", Kind: Randomized},
}

// TechniqueByKey returns the technique with the given key.
func TechniqueByKey(key string) (Technique, bool) {
	for _, t := range Techniques {
		if t.Key == key {
			return t, true
		}
	}
	return Technique{}, false
}

// SelectTechniques parses a comma-separated list of technique keys ("" or "all": every one),
// keeping table order.
func SelectTechniques(list string) ([]Technique, error) {
	if list == "" || list == "all" {
		return append([]Technique(nil), Techniques...), nil
	}
	want := map[string]bool{}
	for _, k := range strings.Split(list, ",") {
		k = strings.TrimSpace(k)
		if _, ok := TechniqueByKey(k); !ok {
			var keys []string
			for _, t := range Techniques {
				keys = append(keys, t.Key)
			}
			return nil, fmt.Errorf("unknown technique %q (known: %s)", k, strings.Join(keys, ", "))
		}
		want[k] = true
	}
	var out []Technique
	for _, t := range Techniques {
		if want[t.Key] {
			out = append(out, t)
		}
	}
	return out, nil
}

// SeedList returns the first n per-execution seeds that the randomized strategies derive from
// the initial seed: the study's "fixed initial seed to generate a single list of ... seeds",
// used "for all benchmarks and for all randomized techniques" (§5, "Notes on
// randomization"). interleave bench gives every randomized cell the same initial seed, so
// every cell's execution i runs with SeedList(seed, n)[i-1]; the list is computed by the
// strategy package itself, not a copy of its generator.
func SeedList(seed uint64, n int) []uint64 {
	r := strategy.NewRandom(seed)
	out := make([]uint64, n)
	for i := range out {
		r.Begin()
		out[i] = r.Seed()
	}
	return out
}

// Benchmark is one program of SCTBench-Go.
type Benchmark struct {
	// ID is the row of Tables III and IV; -1 for the toy programs, which are not among the 49.
	ID int `json:"id"`
	// Name is the paper's name (CS.account_bad), or toy.<dir> for the toys.
	Name string `json:"name"`
	// Package is the directory in the suite, slash-separated (cs/account_bad).
	Package string `json:"package"`
}

// Toy reports whether b is one of the toy programs, reported apart from the 49.
func (b Benchmark) Toy() bool { return b.ID < 0 }

// PackageOf maps a paper name to its package in the suite: the suite before the first dot,
// lower case, then the program with '-' and '.' written '_' (CB.pbzip2-0.9.4 is
// cb/pbzip2_0_9_4).
func PackageOf(paperName string) string {
	suite, prog, ok := strings.Cut(paperName, ".")
	if !ok {
		return strings.ToLower(paperName)
	}
	prog = strings.NewReplacer("-", "_", ".", "_").Replace(strings.ToLower(prog))
	return strings.ToLower(suite) + "/" + prog
}

// Benchmarks lists the suite's benchmarks: the paper's rows whose package is among dirs (the
// suite's test packages, slash-separated), in id order, then the other dirs as toys, sorted.
func Benchmarks(paper *Paper, dirs []string) []Benchmark {
	have := map[string]bool{}
	for _, d := range dirs {
		have[d] = true
	}
	var out []Benchmark
	used := map[string]bool{}
	if paper != nil {
		for _, r := range paper.Rows {
			p := PackageOf(r.Name)
			if have[p] {
				out = append(out, Benchmark{ID: r.ID, Name: r.Name, Package: p})
				used[p] = true
			}
		}
	}
	var toys []string
	for _, d := range dirs {
		if !used[d] {
			toys = append(toys, d)
		}
	}
	sort.Strings(toys)
	for _, d := range toys {
		out = append(out, Benchmark{ID: -1, Name: strings.ReplaceAll(d, "/", "."), Package: d})
	}
	return out
}

// SelectBenchmarks keeps the benchmarks that match one of the patterns: a package
// (cs/account_bad), a glob over packages (cs/*, toy/*), a package prefix with /... (cs/...),
// a paper name (CS.account_bad, case-insensitive) or an id (3). No pattern selects all.
func SelectBenchmarks(all []Benchmark, patterns []string) ([]Benchmark, error) {
	if len(patterns) == 0 {
		return all, nil
	}
	matched := map[int]bool{}
	for _, pat := range patterns {
		pat = strings.TrimPrefix(strings.TrimPrefix(pat, "./"), "testdata/sctbench/")
		n := 0
		for i, b := range all {
			if matchBenchmark(b, pat) {
				matched[i] = true
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("no benchmark matches %q", pat)
		}
	}
	var out []Benchmark
	for i, b := range all {
		if matched[i] {
			out = append(out, b)
		}
	}
	return out, nil
}

func matchBenchmark(b Benchmark, pat string) bool {
	if id, err := strconv.Atoi(pat); err == nil {
		return b.ID == id && !b.Toy()
	}
	if strings.EqualFold(b.Name, pat) || b.Package == pat {
		return true
	}
	if prefix, ok := strings.CutSuffix(pat, "/..."); ok {
		return prefix == "" || prefix == "." || b.Package == prefix || strings.HasPrefix(b.Package, prefix+"/")
	}
	ok, err := path.Match(pat, b.Package)
	return err == nil && ok
}

// Cell is what one technique did on one benchmark.
type Cell struct {
	Benchmark string `json:"benchmark"` // package
	Technique string `json:"technique"` // key
	Strategy  string `json:"strategy"`  // as passed to the test binary

	Schedules int `json:"schedules"`
	Buggy     int `json:"buggy"`
	// FirstBug is the number of the schedule that found the first bug; 0 when none did.
	FirstBug int `json:"first_bug,omitempty"`
	// Bound is the bound reached by an iterative technique (Table III, "bound"): the
	// smallest bound at which the bug was found, or the bound being explored when the limit
	// was hit or the search ended. NewSchedules are the schedules with exactly that bound.
	Bound        int `json:"bound,omitempty"`
	NewSchedules int `json:"new_schedules,omitempty"`

	MaxGoroutines int     `json:"max_goroutines"`
	MaxSteps      int     `json:"max_steps"`
	Seconds       float64 `json:"seconds"` // exploring time in the test binary
	// Stopped is why the exploration ended: "schedules" (the limit), "exhausted" (the
	// whole space of a systematic technique), "time" (the cell's time budget), "bug" (an
	// iterative technique finished the bound of its bug), "canceled", "error".
	Stopped   string `json:"stopped"`
	Exhausted string `json:"exhausted,omitempty"`
	BugKind   string `json:"bug_kind,omitempty"`
	BugMsg    string `json:"bug_message,omitempty"`
	Error     string `json:"error,omitempty"`
}

// Found reports whether the cell found the bug: a buggy schedule whose bug is not the step
// bound. A livelock report means an execution ran past the step bound (INTERLEAVE_MAX_STEPS),
// which a long benchmark does with every access a scheduling point without any livelock; the
// study's bugs are assertion failures, deadlocks, crashes and incorrect output (§1), so such a
// cell is reported apart (StepBound), not counted.
func (c *Cell) Found() bool { return c.FirstBug > 0 && !c.StepBound() }

// StepBound reports whether the first buggy schedule of the cell ran into the step bound.
func (c *Cell) StepBound() bool { return c.FirstBug > 0 && c.BugKind == "livelock" }

// CutShort reports whether the cell ended before its limit or its space for a reason of its
// own: the time budget, an interruption, or a failure.
func (c *Cell) CutShort() bool {
	return c.Error != "" || c.Stopped == "time" || c.Stopped == "canceled" || c.Stopped == ""
}

// PerSchedule is the controlled time of one schedule, in seconds; 0 when nothing ran.
func (c *Cell) PerSchedule() float64 {
	if c.Schedules == 0 {
		return 0
	}
	return c.Seconds / float64(c.Schedules)
}

// AveragePerBug is the study's average number of schedules needed to expose the bug,
// "100,000 / number of buggy schedules" (§5, "Notes on randomization"), with the schedules
// this cell explored in place of 100,000; +Inf when no schedule was buggy.
func (c *Cell) AveragePerBug() float64 {
	if c.Buggy == 0 {
		return math.Inf(1)
	}
	return float64(c.Schedules) / float64(c.Buggy)
}

// Native is the benchmark run without control (PERIOD's Table 1, column "native": "runs to
// 1st bug" and "buggy runs"): the uninstrumented test binary, run again and again.
type Native struct {
	Benchmark string `json:"benchmark"`
	Requested int    `json:"requested"`
	Runs      int    `json:"runs"`
	Buggy     int    `json:"buggy"`
	// FirstBug is the number of the first buggy run; 0 when none was.
	FirstBug int `json:"first_bug,omitempty"`
	// Crashes are runs that ended the process (a panic, Go's "all goroutines are asleep"),
	// Hangs runs stopped after the per-run timeout; both count as buggy.
	Crashes int `json:"crashes,omitempty"`
	Hangs   int `json:"hangs,omitempty"`
	// Seconds is the time of the runs that completed, without process start-up; Timed how
	// many runs it covers.
	Seconds float64 `json:"seconds"`
	Timed   int     `json:"timed"`
	Error   string  `json:"error,omitempty"`
}

// PerRun is the time of one native run in seconds; 0 when none was timed.
func (n *Native) PerRun() float64 {
	if n.Timed == 0 {
		return 0
	}
	return n.Seconds / float64(n.Timed)
}

// Run is one run of interleave bench: its settings and every cell.
type Run struct {
	Version int `json:"version"`
	// Command is the command line that produced the run.
	Command  string  `json:"command"`
	Started  string  `json:"started"` // RFC 3339, UTC
	Seconds  float64 `json:"seconds"` // wall-clock time of the whole run
	Limit    int     `json:"limit"`
	Seed     uint64  `json:"seed"`
	Points   string  `json:"points"` // INTERLEAVE_POINTS; "" is the harness default
	CellTime string  `json:"cell_time"`
	Native   int     `json:"native"` // runs asked for the native column; 0 skipped
	// MaxSteps is the step bound of an execution (INTERLEAVE_MAX_STEPS); 0 is the harness
	// default.
	MaxSteps  int    `json:"max_steps,omitempty"`
	Workers   int    `json:"workers"`
	CPUs      int    `json:"cpus"`
	GoVersion string `json:"go_version"`
	// Revision is the commit of the checkout the suite was in ("+dirty" when it had
	// uncommitted changes); empty when unknown.
	Revision   string      `json:"revision,omitempty"`
	Interrupt  string      `json:"interrupted,omitempty"` // why the run stopped early
	Benchmarks []Benchmark `json:"benchmarks"`
	Techniques []string    `json:"techniques"` // keys
	Cells      []Cell      `json:"cells"`
	Natives    []Native    `json:"natives,omitempty"`
}

// Cell returns the cell of a benchmark and a technique, nil when it did not run.
func (r *Run) Cell(pkg, technique string) *Cell {
	for i := range r.Cells {
		if r.Cells[i].Benchmark == pkg && r.Cells[i].Technique == technique {
			return &r.Cells[i]
		}
	}
	return nil
}

// NativeOf returns the native runs of a benchmark, nil when there were none.
func (r *Run) NativeOf(pkg string) *Native {
	for i := range r.Natives {
		if r.Natives[i].Benchmark == pkg {
			return &r.Natives[i]
		}
	}
	return nil
}

// SelectedTechniques returns the run's techniques in table order.
func (r *Run) SelectedTechniques() []Technique {
	var out []Technique
	for _, t := range Techniques {
		for _, k := range r.Techniques {
			if k == t.Key {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// Tally is how many of a set of benchmarks a technique found the bug of.
type Tally struct {
	Technique Technique
	Found     int
	Of        int // benchmarks with a cell
	CutShort  int // cells cut short (time budget, failure)
	StepBound int // cells whose first buggy schedule ran into the step bound
}

// Tallies counts, per technique, the bugs found among the 49 (toys false) or among the toys
// (toys true).
func (r *Run) Tallies(toys bool) []Tally {
	var out []Tally
	for _, t := range r.SelectedTechniques() {
		ty := Tally{Technique: t}
		for _, b := range r.Benchmarks {
			if b.Toy() != toys {
				continue
			}
			c := r.Cell(b.Package, t.Key)
			if c == nil {
				continue
			}
			ty.Of++
			if c.Found() {
				ty.Found++
			}
			if c.CutShort() {
				ty.CutShort++
			}
			if c.StepBound() {
				ty.StepBound++
			}
		}
		out = append(out, ty)
	}
	return out
}

// Summary is the paper's form of the result, one technique after the other: "PCT d=3:
// 48/49". Toys are counted apart, on a second line, and cells cut short are said.
func (r *Run) Summary() string {
	line := func(label string, ts []Tally) string {
		var parts []string
		for _, t := range ts {
			s := fmt.Sprintf("%s: %d/%d", t.Technique.Label, t.Found, t.Of)
			var notes []string
			if t.CutShort > 0 {
				notes = append(notes, fmt.Sprintf("%d cut short", t.CutShort))
			}
			if t.StepBound > 0 {
				notes = append(notes, fmt.Sprintf("%d at the step bound", t.StepBound))
			}
			if len(notes) > 0 {
				s += " (" + strings.Join(notes, ", ") + ")"
			}
			parts = append(parts, s)
		}
		return label + strings.Join(parts, ", ")
	}
	var b strings.Builder
	n := 0
	for _, bm := range r.Benchmarks {
		if !bm.Toy() {
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(&b, "%s\n", line(fmt.Sprintf("bugs found in %d SCTBench benchmarks at limit %d: ", n, r.Limit), r.Tallies(false)))
	}
	toys, ran := r.Tallies(true), false
	for _, t := range toys {
		ran = ran || t.Of > 0
	}
	if ran {
		fmt.Fprintf(&b, "%s\n", line("toy programs (not among the 49): ", toys))
	}
	return b.String()
}
