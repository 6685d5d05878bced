package instrument

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRewriteConstructs instruments the test module testdata/constructs, which has one small
// test per construct family the rewriter handles, and checks that
//
//   - the rewritten package compiles, and every rewritten file keeps the original's lines: the
//     same declarations and comments on the same lines;
//   - each test prints the same transcript instrumented, under the first schedule of DFS (the
//     non-preemptive one), as natively: the same values, the same order of events, the same
//     panics at the same file:line;
//   - each construct the rewriter leaves alone is reported as a Problem at its file:line, and
//     nothing else is (the lines marked "// problem: <part of the message>");
//   - the values a test draws from math/rand and the order of its map ranges (its lines "~ ",
//     which natively differ from run to run) are the same in two instrumented runs: an
//     execution is a function of its schedule.
func TestRewriteConstructs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test module")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "constructs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	native := runNative(ctx, t, dir)

	work := t.TempDir()
	// A cache of its own: the checks below read the rewritten files, which a build from the
	// build cache does not write.
	res, err := Build(ctx, Config{Dir: dir, Patterns: []string{"./..."}, Work: work, Cache: t.TempDir()})
	if err != nil {
		t.Fatalf("instrument: %v", err)
	}
	if len(res.Packages) != 1 || res.Packages[0].Binary == "" {
		t.Fatalf("instrument: want one test binary, got %+v", res.Packages)
	}
	instrumented := runInstrumented(ctx, t, res.Packages[0], t.TempDir())
	again := runInstrumented(ctx, t, res.Packages[0], t.TempDir(), "-test.run=^(TestRand|TestMapRange)")

	t.Run("transcripts", func(t *testing.T) {
		compareTranscripts(t, native, instrumented)
	})
	t.Run("lines", func(t *testing.T) {
		checkLines(t, work)
	})
	t.Run("problems", func(t *testing.T) {
		checkProblems(t, dir, res.Problems)
	})
	t.Run("rand", func(t *testing.T) {
		compareDraws(t, instrumented, again)
	})
	t.Run("handles", func(t *testing.T) {
		// The test's *testing.T keeps its type; its methods go through the harness, each
		// kind of receiver through its hook (handle.go).
		out := rewrittenFile(t, work, "handles_test.go")
		for _, hook := range []string{"__ilh.OfT(embedsT{", "}.T).Name()", "__ilh.OfTB(embedsTB{", "}.TB).Name()", "__ilh.Of(h).Helper()",
			"__ilh.OfTB(x).Name()", "__ilh.Of(l).Logf(", "__ilh.OfTB(tb).Helper()", "__ilh.RunOf(", "__ilh.ParallelOf(x)", ")).Cleanup(", ")).Name\n"} {
			if !strings.Contains(out, hook) {
				t.Errorf("handles_test.go rewritten lacks %s:\n%s", hook, out)
			}
		}
		if strings.Contains(out, "harness.T") || strings.Contains(out, "__ilh.T ") {
			t.Errorf("handles_test.go rewritten names the harness's types:\n%s", out)
		}
	})
	t.Run("maphash", func(t *testing.T) {
		// A seed's hashes differ from process to process whatever the seed (the runtime's
		// hash keys are random), so the runs cannot compare them: the rewritten file must call
		// the engine's MakeSeed, for the call and for the function value (engine/maphash.go
		// checks that an execution's seeds are a function of its schedule).
		out := rewrittenFile(t, work, "rand_test.go")
		if n := strings.Count(out, ".MaphashMakeSeed("); n != 2 {
			t.Errorf("rand_test.go rewritten calls MaphashMakeSeed %d times, want 2 (the call and the value):\n%s", n, out)
		}
	})
	t.Run("pipes", func(t *testing.T) {
		// io.Pipe whose ends are used as interfaces, net.Pipe, net.Listen and the dials are
		// the engine's (the transcripts show they behave as the real ones); the io.Pipe passed
		// as *io.PipeReader stays real (a problem).
		out := rewrittenFile(t, work, "pipes_test.go")
		for call, want := range map[string]int{"__il.IOPipe(": 2, "io.Pipe()": 1, "__ilvnet.Pipe(": 2, "__ilvnet.Listen(": 1,
			"__ilvnet.Dial(": 1, "__ilvnet.DialTimeout(": 1, "__ilvnet.DialerDialContext(&d, ": 1} {
			if n := strings.Count(out, call); n != want {
				t.Errorf("pipes_test.go rewritten has %s %d times, want %d:\n%s", call, n, want, out)
			}
		}
	})
}

// overlayOf returns the build's overlay in work: each rewritten file by its original.
func overlayOf(t *testing.T, work string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(work, "overlay.json"))
	if err != nil {
		t.Fatal(err)
	}
	var overlay struct{ Replace map[string]string }
	if err := json.Unmarshal(b, &overlay); err != nil {
		t.Fatal(err)
	}
	return overlay.Replace
}

// rewrittenFile returns the rewritten text of the file of the test module named name.
func rewrittenFile(t *testing.T, work, name string) string {
	t.Helper()
	for orig, dst := range overlayOf(t, work) {
		if filepath.Base(orig) == name {
			out, err := os.ReadFile(dst)
			if err != nil {
				t.Fatal(err)
			}
			return string(out)
		}
	}
	t.Fatalf("%s was not rewritten", name)
	return ""
}

// compareDraws checks that the tests of run b drew the same values (their "~ " lines) as in
// run a.
func compareDraws(t *testing.T, a, b run) {
	n := 0
	for name, want := range b.draws {
		n += len(want)
		if d := diffLines(a.draws[name], want); d != "" {
			t.Errorf("%s: the values drawn differ between two instrumented runs (-first +second):\n%s", name, d)
		}
	}
	if n == 0 {
		t.Errorf("no test drew values (printed \"~ \" lines):\n%s", b.output)
	}
}

// A run is the transcripts of a go test -v run, by test, and the tests that passed; draws
// are the lines of values drawn from math/rand ("~ "), by test.
type run struct {
	transcripts map[string][]string
	draws       map[string][]string
	passed      map[string]bool
	output      string
}

var (
	runLine  = regexp.MustCompile(`^=== (?:RUN|CONT|NAME)\s+(\S+)`)
	passLine = regexp.MustCompile(`^\s*--- PASS: (\S+)`)
)

// parseRun splits the output of go test -v into the lines each test printed with "> ".
func parseRun(out []byte) run {
	r := run{transcripts: map[string][]string{}, draws: map[string][]string{}, passed: map[string]bool{}, output: string(out)}
	cur := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := runLine.FindStringSubmatch(line); m != nil {
			cur = m[1]
			if _, ok := r.transcripts[cur]; !ok {
				r.transcripts[cur] = []string{}
			}
			continue
		}
		if m := passLine.FindStringSubmatch(line); m != nil {
			r.passed[m[1]] = true
			continue
		}
		if strings.HasPrefix(line, "> ") {
			r.transcripts[cur] = append(r.transcripts[cur], line)
		}
		if strings.HasPrefix(line, "~ ") {
			r.draws[cur] = append(r.draws[cur], line)
		}
	}
	return r
}

func goEnv() []string { return append(os.Environ(), "GOWORK=off", "GOFLAGS=") }

func runNative(ctx context.Context, t *testing.T, dir string) run {
	t.Helper()
	cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-v", ".")
	cmd.Dir = dir
	cmd.Env = goEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("native go test: %v\n%s", err, out)
	}
	return parseRun(out)
}

func runInstrumented(ctx context.Context, t *testing.T, pkg *Package, schedules string, args ...string) run {
	t.Helper()
	cmd := exec.CommandContext(ctx, pkg.Binary, append([]string{"-test.v", "-test.count=1"}, args...)...)
	cmd.Dir = pkg.Dir
	cmd.Env = append(os.Environ(),
		"INTERLEAVE_STRATEGY=dfs", // its first schedule is the non-preemptive round robin
		"INTERLEAVE_SCHEDULES=1",
		"INTERLEAVE_POINTS=all", // no race-detection phase: the transcript is of one execution
		"INTERLEAVE_SEED=1",
		"INTERLEAVE_MINIMIZE=0",
		"INTERLEAVE_SCHEDULE_DIR="+schedules,
		"INTERLEAVE_REPLAY=",
		"INTERLEAVE_EVENTS=",
	)
	out, _ := cmd.CombinedOutput() // failures are reported per test
	return parseRun(out)
}

// knownDiffs are the tests whose instrumented transcript is known to differ, with why.
var knownDiffs = map[string]string{
	"TestUnspecifiedOrder": "a read of a shared variable becomes a call, made in its place among the statement's calls; gc reads variables after the calls",
}

func compareTranscripts(t *testing.T, native, inst run) {
	var names []string
	for name := range native.transcripts {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatalf("the native run ran no test:\n%s", native.output)
	}
	for _, name := range names {
		want, got := native.transcripts[name], inst.transcripts[name]
		if len(want) == 0 {
			t.Errorf("%s: the native run printed nothing", name)
		}
		if _, ok := inst.transcripts[name]; !ok {
			t.Errorf("%s: did not run instrumented", name)
			continue
		}
		if !inst.passed[name] {
			t.Errorf("%s: failed instrumented:\n%s", name, testOutput(inst.output, name))
		}
		d := diffLines(want, got)
		if why, ok := knownDiffs[name]; ok {
			if d == "" {
				t.Errorf("%s: the transcripts are equal: remove it from knownDiffs", name)
			} else {
				t.Logf("%s: known difference (%s):\n%s", name, why, d)
			}
			continue
		}
		if d != "" {
			t.Errorf("%s: instrumented transcript differs from the native one (-native +instrumented):\n%s", name, d)
		}
	}
	for name := range inst.transcripts {
		if _, ok := native.transcripts[name]; !ok {
			t.Errorf("%s: ran instrumented only", name)
		}
	}
}

// testOutput is the part of a go test -v output that belongs to the test name.
func testOutput(out, name string) string {
	var sb strings.Builder
	in := false
	for _, line := range strings.Split(out, "\n") {
		if m := runLine.FindStringSubmatch(line); m != nil {
			in = m[1] == name
		}
		if in {
			sb.WriteString(line + "\n")
		}
	}
	return sb.String()
}

// diffLines is a line diff of want and got ("" when equal): the common prefix and suffix
// are left out.
func diffLines(want, got []string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	if i == len(want) && i == len(got) {
		return ""
	}
	j := 0
	for j < len(want)-i && j < len(got)-i && want[len(want)-1-j] == got[len(got)-1-j] {
		j++
	}
	var sb strings.Builder
	for _, l := range want[i : len(want)-j] {
		sb.WriteString("-" + l + "\n")
	}
	for _, l := range got[i : len(got)-j] {
		sb.WriteString("+" + l + "\n")
	}
	return sb.String()
}

// checkLines checks each rewritten file against its original: a //line directive first, then
// the original's lines one for one (the same top-level declarations and comments at the same
// positions once the directive is applied), then only the added test wrappers.
func checkLines(t *testing.T, work string) {
	replace := overlayOf(t, work)
	if len(replace) == 0 {
		t.Fatal("no file was rewritten")
	}
	for orig, dst := range replace {
		if strings.HasPrefix(filepath.Base(orig), "zz_interleave_state") {
			continue // a generated file, added to its package (state.go)
		}
		src, err := os.ReadFile(orig)
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.ReadFile(dst)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(orig)
		lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
		outLines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if want := "//line " + orig + ":1:1"; outLines[0] != want {
			t.Errorf("%s: first line %q, want %q", name, outLines[0], want)
			continue
		}
		outLines = outLines[1:]
		if len(outLines) < len(lines) {
			t.Errorf("%s: %d lines rewritten, %d in the original", name, len(outLines), len(lines))
			continue
		}
		for i, l := range outLines[len(lines):] {
			if l != "" && !strings.HasPrefix(l, "func Test") && !strings.HasPrefix(l, "var _ = ") {
				t.Errorf("%s: line %d after the original's end: %q", name, len(lines)+i+1, l)
			}
		}
		// The lines that are only a comment are kept.
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), "//") && !strings.HasPrefix(strings.TrimSpace(l), "//line ") {
				if outLines[i] != l {
					t.Errorf("%s:%d: rewritten to %q, want it unchanged: %q", name, i+1, outLines[i], l)
				}
			}
		}
		fset := token.NewFileSet()
		of, err := parser.ParseFile(fset, orig, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		rf, err := parser.ParseFile(fset, dst, out, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: the rewritten file does not parse: %v", name, err)
			continue
		}
		if want, got := landmarks(fset, of), landmarks(fset, rf); !sameLandmarks(want, got) {
			t.Errorf("%s: declarations and comments moved:\n%s", name, diffLines(want, got))
		}
	}
}

// landmarks lists the positions of a file's top-level declarations (by name) and the lines of
// its comments (a rewrite before a comment on its line moves its column).
func landmarks(fset *token.FileSet, f *ast.File) []string {
	var out []string
	pos := func(p token.Pos) string {
		position := fset.Position(p)
		return filepath.Base(position.Filename) + ":" + strconv.Itoa(position.Line) + ":" + strconv.Itoa(position.Column)
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			name := d.Name.Name
			if strings.HasPrefix(name, "__il") {
				name = strings.TrimPrefix(name, "__il")
			} else if isWrapper(d) {
				continue
			}
			out = append(out, "func "+name+" "+pos(d.Name.Pos()))
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					out = append(out, "type "+s.Name.Name+" "+pos(s.Name.Pos()))
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name != "_" {
							out = append(out, "var "+n.Name+" "+pos(n.Pos()))
						}
					}
				}
			}
		}
	}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			// A comment inside a select case that spans lines moves with the case. Line
			// directives are the rewriter's (the header, and the frame of a method value).
			if !strings.HasPrefix(c.Text, "//line ") && !strings.HasPrefix(c.Text, "/*line ") && !strings.Contains(c.Text, "select case spans lines") {
				p := fset.Position(c.Pos())
				out = append(out, "comment "+filepath.Base(p.Filename)+":"+strconv.Itoa(p.Line)+" "+c.Text)
			}
		}
	}
	sort.Strings(out)
	return out
}

// isWrapper reports whether d is a test wrapper the rewriter appended: a one-line function
// that calls RunTest.
func isWrapper(d *ast.FuncDecl) bool {
	if d.Body == nil || len(d.Body.List) != 1 {
		return false
	}
	es, ok := d.Body.List[0].(*ast.ExprStmt)
	if !ok {
		return false
	}
	c, ok := es.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "RunTest"
}

func sameLandmarks(a, b []string) bool {
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

// problemMark is the comment marking a line the rewriter must report: the text after it is a
// part of the expected message.
var problemMark = regexp.MustCompile(`// problem: (.*)$`)

func checkProblems(t *testing.T, dir string, problems []Problem) {
	type mark struct {
		file string
		line int
		want string
	}
	var marks []mark
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(b), "\n") {
			if m := problemMark.FindStringSubmatch(l); m != nil {
				marks = append(marks, mark{filepath.Base(f), i + 1, strings.TrimSpace(m[1])})
			}
		}
	}
	if len(marks) == 0 {
		t.Fatal("no line is marked // problem:")
	}
	key := func(file string, line int) string { return file + ":" + strconv.Itoa(line) }
	byLine := map[string][]Problem{}
	for _, p := range problems {
		if p.Pos.Filename == "" || p.Pos.Line == 0 {
			t.Errorf("problem without a position: %v", p)
			continue
		}
		if filepath.Dir(p.Pos.Filename) != dir {
			t.Errorf("problem outside the module: %v", p)
			continue
		}
		k := key(filepath.Base(p.Pos.Filename), p.Pos.Line)
		byLine[k] = append(byLine[k], p)
	}
	marked := map[string]bool{}
	for _, m := range marks {
		k := key(m.file, m.line)
		marked[k] = true
		found := false
		for _, p := range byLine[k] {
			if strings.Contains(p.Msg, m.want) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: want a problem %q, got %v", k, m.want, byLine[k])
		}
	}
	for k, ps := range byLine {
		if !marked[k] {
			for _, p := range ps {
				t.Errorf("unexpected problem: %v", p)
			}
		}
	}
}
