package bench

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine/strategy"
)

const paperDir = "../../../../testdata/sctbench/paper"

func loadTestPaper(t *testing.T) *Paper {
	t.Helper()
	p, err := LoadPaper(filepath.Join(paperDir, "sctbench-paper-systematic.tsv"), filepath.Join(paperDir, "sctbench-paper-randomized.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func allIDs() []int {
	ids := make([]int, 49)
	for i := range ids {
		ids[i] = i
	}
	return ids
}

// TestPaperCounts checks the loaded tables against what the study's text says they hold (§1,
// RQ3 and RQ4; §6.1 on Figure 4): with the limit of 100,000, IPB found 38 bugs, IDB 45, DFS 33,
// Rand 43, PCT d=3 48; with a limit of 1,000 IDB and Rand would have found 40 and 42.
func TestPaperCounts(t *testing.T) {
	p := loadTestPaper(t)
	if len(p.Rows) != 49 {
		t.Fatalf("%d rows, want 49", len(p.Rows))
	}
	for _, tc := range []struct {
		technique string
		limit     int
		want      int
	}{
		{"ipb", PaperLimit, 38},
		{"idb", PaperLimit, 45},
		{"dfs", PaperLimit, 33},
		{"rand", PaperLimit, 43},
		{"pct3", PaperLimit, 48},
		{"idb", 1000, 40},
		{"rand", 1000, 42},
	} {
		found, of := p.Found(tc.technique, tc.limit, allIDs())
		if found != tc.want || of != 49 {
			t.Errorf("%s at limit %d: %d/%d, want %d/49", tc.technique, tc.limit, found, of, tc.want)
		}
	}
}

func TestPaperValues(t *testing.T) {
	p := loadTestPaper(t)
	for _, tc := range []struct {
		id                int
		technique, column string
		want              string
	}{
		{3, "ipb", "bound", "0"},
		{3, "dfs", "first_bug", "3"},
		{3, "rand", "buggy", "11912"},
		{19, "ipb", "first_bug", "✗"}, // written X in Table III
		{2, "pct1", "first_bug", "✗"},
		{1, "dfs", "schedules", "L"},
		{4, "rand", "buggy", "L"},
		{0, "pct3", "est_worst", "<1"},
		{3, "", "first_bug", ""},
		{3, "pos", "first_bug", ""},
	} {
		if got := p.Row(tc.id).Value(tc.technique, tc.column); got != tc.want {
			t.Errorf("row %d %s_%s = %q, want %q", tc.id, tc.technique, tc.column, got, tc.want)
		}
	}
	if r := p.Row(3); r.Name != "CS.account_bad" || r.Threads != "4" || r.MaxSteps != "8" {
		t.Errorf("row 3 = %s, n %s, k %s", r.Name, r.Threads, r.MaxSteps)
	}
	if p.Row(-1) != nil || p.Row(49) != nil {
		t.Error("rows -1 and 49 exist")
	}
}

func TestReadPaperRejects(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"no header", "3\tCS.account_bad\n"},
		{"short row", "id\tname\trand_first_bug\n3\tCS.account_bad\n"},
		{"bad id", "id\tname\nthree\tCS.account_bad\n"},
		{"empty", ""},
	} {
		if _, err := ReadPaper(strings.NewReader(tc.text)); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// TestBenchmarksOfTheSuite maps every paper row to a package of testdata/sctbench, and the
// other packages become the toys.
func TestBenchmarksOfTheSuite(t *testing.T) {
	files, err := filepath.Glob("../../../../testdata/sctbench/*/*/*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, f := range files {
		rel, _ := filepath.Rel("../../../../testdata/sctbench", filepath.Dir(f))
		dirs = append(dirs, filepath.ToSlash(rel))
	}
	bs := Benchmarks(loadTestPaper(t), dirs)
	var toys, main []string
	for _, b := range bs {
		if b.Toy() {
			toys = append(toys, b.Package)
		} else {
			main = append(main, b.Package)
		}
	}
	if len(main) != 49 {
		t.Errorf("%d benchmarks of the paper in the suite, want 49; toys: %v", len(main), toys)
	}
	if want := "toy/figure1 toy/figure2 toy/period_once toy/sen_example"; strings.Join(toys, " ") != want {
		t.Errorf("toys %v, want %s", toys, want)
	}
	for _, tc := range []struct{ pattern, want string }{
		{"cs/account_bad", "cs/account_bad"},
		{"CS.account_bad", "cs/account_bad"},
		{"3", "cs/account_bad"},
		{"./testdata/sctbench/toy/figure1", "toy/figure1"},
		{"splash2/...", "splash2/barnes splash2/fft splash2/lu"},
		{"cs/reorder_*", "cs/reorder_10_bad cs/reorder_20_bad cs/reorder_3_bad cs/reorder_4_bad cs/reorder_5_bad"},
	} {
		sel, err := SelectBenchmarks(bs, []string{tc.pattern})
		if err != nil {
			t.Errorf("%s: %v", tc.pattern, err)
			continue
		}
		var got []string
		for _, b := range sel {
			got = append(got, b.Package)
		}
		// Selection keeps the table's order (by id); compare as sets.
		if !sameSet(got, strings.Fields(tc.want)) {
			t.Errorf("%s selects %v, want %s", tc.pattern, got, tc.want)
		}
	}
	if _, err := SelectBenchmarks(bs, []string{"nosuch"}); err == nil {
		t.Error("an unknown benchmark is selected")
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

func TestPackageOf(t *testing.T) {
	for name, want := range map[string]string{
		"CB.pbzip2-0.9.4":        "cb/pbzip2_0_9_4",
		"CB.stringbuffer-jdk1.4": "cb/stringbuffer_jdk1_4",
		"misc.ctrace-test":       "misc/ctrace_test",
		"chess.IWSQWS":           "chess/iwsqws",
		"CS.din_phil2_sat":       "cs/din_phil2_sat",
	} {
		if got := PackageOf(name); got != want {
			t.Errorf("PackageOf(%s) = %s, want %s", name, got, want)
		}
	}
}

// TestSeedList checks that the list is the one every randomized technique runs: execution i
// of Rand, PCT, POS and RAPOS with the same initial seed uses the list's seed i (§5, "we used
// these same seeds for all benchmarks and for all randomized techniques").
func TestSeedList(t *testing.T) {
	const n = 8
	list := SeedList(1, n)
	if again := SeedList(1, n); !equalSeeds(list, again) {
		t.Fatalf("the list is not deterministic: %v then %v", list, again)
	}
	if other := SeedList(2, n); equalSeeds(list, other) {
		t.Fatalf("seeds 1 and 2 give the same list %v", list)
	}
	seen := map[uint64]bool{}
	for _, s := range list {
		if seen[s] {
			t.Fatalf("seed %d twice in %v", s, list)
		}
		seen[s] = true
	}
	for _, tc := range []struct {
		name   string
		params map[string]string
	}{{"random", nil}, {"pct", map[string]string{"d": "3"}}, {"pct", map[string]string{"d": "1"}}, {"pos", nil}, {"rapos", nil}} {
		s, err := strategy.New(tc.name, tc.params, 1)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			if !s.Begin() {
				t.Fatalf("%s ended", tc.name)
			}
			if got := s.Params()["seed"]; got != strconv.FormatUint(list[i], 10) {
				t.Errorf("%s %v execution %d: seed %s, want %d", tc.name, tc.params, i+1, got, list[i])
			}
		}
	}
}

func equalSeeds(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSelectTechniques(t *testing.T) {
	all, err := SelectTechniques("")
	if err != nil || len(all) != len(Techniques) {
		t.Fatalf("all: %d, %v", len(all), err)
	}
	got, err := SelectTechniques("pct3,rand,ipb")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, tq := range got {
		keys = append(keys, tq.Key)
	}
	if strings.Join(keys, ",") != "ipb,rand,pct3" {
		t.Errorf("selected %v, want table order ipb,rand,pct3", keys)
	}
	if _, err := SelectTechniques("pct4"); err == nil {
		t.Error("pct4 accepted")
	}
	for _, tq := range Techniques {
		if _, err := strategy.New(tq.Strategy, tq.Params, 1); err != nil {
			t.Errorf("technique %s: %v", tq.Key, err)
		}
	}
	if s := (Technique{Strategy: "pct", Params: map[string]string{"d": "2", "n": "4"}}).StrategyArg(); s != "pct:d=2,n=4" {
		t.Errorf("StrategyArg = %s", s)
	}
}

// sampleRun is a run of two techniques on CS.account_bad (id 3), CS.reorder_10_bad (id 19)
// and a toy, with numbers chosen to be told apart from the paper's.
func sampleRun() *Run {
	return &Run{
		Command: "interleave bench -limit 1000", Limit: 1000, Seed: 1, CellTime: "3m0s", Native: 100, Workers: 2, CPUs: 2,
		Benchmarks: []Benchmark{
			{ID: 3, Name: "CS.account_bad", Package: "cs/account_bad"},
			{ID: 19, Name: "CS.reorder_10_bad", Package: "cs/reorder_10_bad"},
			{ID: -1, Name: "toy.figure1", Package: "toy/figure1"},
		},
		Techniques: []string{"ipb", "rand"},
		Cells: []Cell{
			{Benchmark: "cs/account_bad", Technique: "ipb", Strategy: "ipb", Schedules: 7, Buggy: 2, FirstBug: 4, Bound: 0, NewSchedules: 7, MaxGoroutines: 4, MaxSteps: 42, Seconds: 0.0007, Stopped: "exhausted"},
			{Benchmark: "cs/account_bad", Technique: "rand", Strategy: "random", Schedules: 1000, Buggy: 179, FirstBug: 2, MaxGoroutines: 4, MaxSteps: 40, Seconds: 0.015, Stopped: "schedules"},
			{Benchmark: "cs/reorder_10_bad", Technique: "ipb", Strategy: "ipb", Schedules: 1000, Bound: 1, NewSchedules: 990, MaxGoroutines: 11, MaxSteps: 200, Seconds: 0.5, Stopped: "schedules"},
			{Benchmark: "cs/reorder_10_bad", Technique: "rand", Strategy: "random", Schedules: 321, Buggy: 1, FirstBug: 300, MaxGoroutines: 11, MaxSteps: 210, Seconds: 180, Stopped: "time"},
			{Benchmark: "toy/figure1", Technique: "ipb", Strategy: "ipb", Schedules: 62, Buggy: 8, FirstBug: 33, Bound: 1, NewSchedules: 56, MaxGoroutines: 4, MaxSteps: 16, Seconds: 0.001, Stopped: "exhausted"},
			{Benchmark: "toy/figure1", Technique: "rand", Strategy: "random", Stopped: "error", Error: "build: it broke"},
		},
		Natives: []Native{
			{Benchmark: "cs/account_bad", Requested: 100, Runs: 100, Buggy: 3, FirstBug: 40, Seconds: 0.001, Timed: 100},
		},
	}
}

func TestMarkdownPutsThePaperBesideOurs(t *testing.T) {
	var buf bytes.Buffer
	if err := Markdown(&buf, sampleRun(), loadTestPaper(t)); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{
		// Table III: IPB bound, 1st bug, schedules, new, buggy — paper 0, 3, 6, 6, 2.
		"| 3 | CS.account_bad | 0 (0) | 4 (3) | 7 (6) | 7 (6) | 2 (2) |",
		// IPB hit the limit on reorder_10 without the bug; the paper's bound 0, X, L, L, 0.
		"| 19 | CS.reorder_10_bad | 1 (0) | ✗ (✗) | 1000 (L) | 990 (L) | 0 (0) |",
		// Table IV: Rand 1st bug 2 (8), buggy 179 (11912), average 1000/179 (100000/11912).
		"| 3 | CS.account_bad | 2 (8) | 179 (11912) | 5.6 (8.4) |",
		// Cut short by the time budget: marked, and said under the table.
		"| 19 | CS.reorder_10_bad | 300 (✗) | 1† (0) | 321 (—) |",
		"- † CS.reorder_10_bad × Rand: time budget reached after 321 of 1000 schedules",
		// The toy's failed cell shows its error.
		"| — | toy.figure1 | error† | error† | error† |",
		"- † toy.figure1 × Rand: failed: build: it broke",
		// Summary: ours among the two benchmarks, the paper's on the same two.
		"| IPB | 1/2 | 1/2 | 1/2 | 1/1 | 0 | 0 |",
		"| Rand | 2/2 | 1/2 | 1/2 | 0/1 | 2 | 0 |",
		// Cost: the paper's n and k beside ours, native 3 of 100 runs, 10 µs per run;
		// 0.7 µs... per schedule: IPB 100 µs, Rand 15 µs: slowdown 1.5–10×.
		"| 3 | CS.account_bad | 4 (4) | 42 (8) | 3/100 | 40 | 10 | 100 | 15 | 1.5–10× |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("results.md lacks\n\t%s\nin\n%s", want, md)
		}
	}
}

func TestTSVRows(t *testing.T) {
	var buf bytes.Buffer
	if err := TSV(&buf, sampleRun(), loadTestPaper(t)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 7 {
		t.Fatalf("%d lines, want a header and 6 cells:\n%s", len(lines), buf.String())
	}
	header := strings.Split(lines[0], "\t")
	rows := map[string]map[string]string{}
	for _, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != len(header) {
			t.Fatalf("%d fields, header has %d: %q", len(f), len(header), l)
		}
		row := map[string]string{}
		for i, h := range header {
			row[h] = f[i]
		}
		rows[row["package"]+" "+row["technique"]] = row
	}
	for _, tc := range []struct{ cell, column, want string }{
		{"cs/account_bad rand", "first_bug", "2"},
		{"cs/account_bad rand", "paper_first_bug", "8"},
		{"cs/account_bad rand", "paper_buggy", "11912"},
		{"cs/account_bad rand", "avg_schedules_per_bug", "5.59"},
		{"cs/account_bad rand", "bound", ""},
		{"cs/account_bad rand", "points", "default"},
		{"cs/account_bad rand", "slowdown", "1.50"},
		{"cs/account_bad ipb", "bound", "0"},
		{"cs/account_bad ipb", "paper_bound", "0"},
		{"cs/account_bad ipb", "paper_schedules", "6"},
		{"cs/account_bad ipb", "native_us_per_run", "10.000"},
		{"cs/reorder_10_bad ipb", "first_bug", ""},
		{"cs/reorder_10_bad ipb", "paper_first_bug", "✗"},
		{"cs/reorder_10_bad rand", "cut_short", "true"},
		{"toy/figure1 ipb", "id", ""},
		{"toy/figure1 ipb", "toy", "true"},
		{"toy/figure1 rand", "error", "build: it broke"},
	} {
		if got := rows[tc.cell][tc.column]; got != tc.want {
			t.Errorf("%s %s = %q, want %q", tc.cell, tc.column, got, tc.want)
		}
	}
}

func TestSummary(t *testing.T) {
	got := sampleRun().Summary()
	want := "bugs found in 2 SCTBench benchmarks at limit 1000: IPB: 1/2, Rand: 2/2 (1 cut short)\n" +
		"toy programs (not among the 49): IPB: 1/1, Rand: 0/1 (1 cut short)\n"
	if got != want {
		t.Errorf("summary\n%s\nwant\n%s", got, want)
	}
}

func TestCumulative(t *testing.T) {
	r := &Run{Limit: 100, Techniques: []string{"rand"}}
	for i, first := range []int{0, 5, 1, 5, 40, 0} {
		pkg := string(rune('a' + i))
		r.Benchmarks = append(r.Benchmarks, Benchmark{ID: i, Name: pkg, Package: pkg})
		r.Cells = append(r.Cells, Cell{Benchmark: pkg, Technique: "rand", FirstBug: first})
	}
	// A toy's bug does not count.
	r.Benchmarks = append(r.Benchmarks, Benchmark{ID: -1, Name: "toy", Package: "toy"})
	r.Cells = append(r.Cells, Cell{Benchmark: "toy", Technique: "rand", FirstBug: 2})
	got := Cumulative(r, "rand")
	want := []struct{ x, y float64 }{{1, 1}, {5, 3}, {40, 4}}
	if len(got) != len(want) {
		t.Fatalf("points %v, want %v", got, want)
	}
	for i, w := range want {
		if got[i].X != w.x || got[i].Y != w.y {
			t.Errorf("point %d = %v, want %v", i, got[i], w)
		}
	}
}

func TestFigure4Files(t *testing.T) {
	dir := t.TempDir()
	svgPath, pngPath := filepath.Join(dir, "figure4.svg"), filepath.Join(dir, "figure4.png")
	if err := SaveFigure4(sampleRun(), loadTestPaper(t), svgPath, pngPath); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("figure4.png: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 400 || b.Dy() < 300 {
		t.Errorf("figure4.png is %v", b)
	}
	data, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("figure4.svg is not XML: %v", err)
		}
		if cd, ok := tok.(xml.CharData); ok {
			text.Write(cd)
		}
	}
	// The legend labels each line with the bugs it found among the 49 (toys not counted), and
	// the study's count on the same benchmarks within the same limit.
	for _, want := range []string{"IPB (1; paper 1)", "Rand (2; paper 1)", "bugs found", "schedules (log scale)"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("figure4.svg has no text %q", want)
		}
	}
}

func TestNativeTally(t *testing.T) {
	const test = "TestX"
	for _, tc := range []struct {
		name    string
		lines   []string
		crash   bool // the process died after the lines
		hang    bool // the last run hung
		runs    int
		buggy   int
		first   int
		crashes int
		hangs   int
	}{
		{"passes", []string{"=== RUN   TestX", "--- PASS: TestX (0.00s)", "=== RUN   TestX", "--- PASS: TestX (0.00s)"}, false, false, 2, 0, 0, 0, 0},
		{"a failure", []string{"=== RUN   TestX", "--- PASS: TestX (0.00s)", "=== RUN   TestX", "    x_test.go:9: boom", "--- FAIL: TestX (0.00s)"}, false, false, 2, 1, 2, 0, 0},
		{"a crash", []string{"=== RUN   TestX", "--- PASS: TestX (0.00s)", "=== RUN   TestX", "fatal error: all goroutines are asleep - deadlock!"}, true, false, 2, 1, 2, 1, 0},
		{"a panic after FAIL is one run", []string{"=== RUN   TestX", "--- FAIL: TestX (0.00s)", "panic: boom"}, true, false, 1, 1, 1, 0, 0},
		{"a hang", []string{"=== RUN   TestX"}, false, true, 1, 1, 1, 0, 1},
		{"other tests and subtests", []string{"=== RUN   TestY", "--- FAIL: TestY (0.00s)", "=== RUN   TestX", "=== RUN   TestX/sub", "    --- FAIL: TestX/sub (0.00s)", "--- PASS: TestX (0.00s)"}, false, false, 1, 0, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tl := NewNativeTally("b", test, 10)
			for _, l := range tc.lines {
				tl.Line(l)
			}
			if tc.crash {
				tl.Crashed()
			}
			if tc.hang {
				tl.Hung()
			}
			n := tl.Native
			if n.Runs != tc.runs || n.Buggy != tc.buggy || n.FirstBug != tc.first || n.Crashes != tc.crashes || n.Hangs != tc.hangs {
				t.Errorf("runs %d buggy %d first %d crashes %d hangs %d; want %d %d %d %d %d",
					n.Runs, n.Buggy, n.FirstBug, n.Crashes, n.Hangs, tc.runs, tc.buggy, tc.first, tc.crashes, tc.hangs)
			}
			if tl.Left() != 10-tc.runs {
				t.Errorf("left %d", tl.Left())
			}
		})
	}
}

// TestStepBoundIsNotABug: a cell whose first buggy schedule ran into the step bound (a
// livelock report) is shown and summarized apart, not counted as finding the bug.
func TestStepBoundIsNotABug(t *testing.T) {
	r := &Run{Limit: 100, MaxSteps: 5000, Techniques: []string{"rand"},
		Benchmarks: []Benchmark{{ID: 0, Name: "CB.aget-bug2", Package: "cb/aget_bug2"}},
		Cells:      []Cell{{Benchmark: "cb/aget_bug2", Technique: "rand", Schedules: 100, Buggy: 100, FirstBug: 1, BugKind: "livelock", MaxSteps: 5000, MaxGoroutines: 1, Stopped: "schedules"}},
	}
	if got, want := r.Summary(), "bugs found in 1 SCTBench benchmarks at limit 100: Rand: 0/1 (1 at the step bound)\n"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	var buf bytes.Buffer
	if err := Markdown(&buf, r, loadTestPaper(t)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| 0 | CB.aget-bug2 | ✗‡ (4) | 100 (48591) |",
		"- ‡ CB.aget-bug2 × Rand: the first buggy schedule (1) ran into the step bound (5000; longest execution 5000 steps, 1 goroutines)",
		"Step bound 5000 steps per execution.",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("results.md lacks %q in\n%s", want, buf.String())
		}
	}
	if pts := Cumulative(r, "rand"); len(pts) != 0 {
		t.Errorf("Figure 4 counts the step bound: %v", pts)
	}
}
