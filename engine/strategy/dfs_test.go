package strategy_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// model is a small program given as data, so that the same description is run under the
// engine and enumerated independently: the body (G0) starts every goroutine in one step,
// then runs ops[0]; goroutine Gi runs ops[i].
type model struct {
	name string
	ops  [][]mop
}

// mop is an operation of a model: lock or unlock mutex m, or write variable m.
type mop struct {
	kind byte // 'L', 'U', 'W'
	m    int
}

func (m model) body(t *engine.T) {
	var mus [4]sync.Mutex
	var vars [4]int
	exec := func(ops []mop) {
		for i, op := range ops {
			pos := fmt.Sprintf("%c%d.%d", op.kind, op.m, i)
			switch op.kind {
			case 'L':
				engine.Lock(&mus[op.m], pos)
			case 'U':
				engine.Unlock(&mus[op.m], pos)
			case 'W':
				engine.Write(unsafe.Pointer(&vars[op.m]), pos)
				vars[op.m]++
			}
		}
	}
	var fs []func()
	for _, ops := range m.ops[1:] {
		fs = append(fs, func() { exec(ops) })
	}
	engine.GoAll(fs, "go")
	exec(m.ops[0])
}

// enumerate lists every terminal schedule of m as the string of its goroutines, by a
// direct search of the model's states, independent of the engine and the strategies.
func (m model) enumerate() []string {
	var out []string
	n := len(m.ops)
	pc := make([]int, n)
	held := map[int]bool{}
	var rec func(prefix string, started bool)
	rec = func(prefix string, started bool) {
		if !started {
			rec(prefix+"0", true) // the GoAll step
			return
		}
		any := false
		for g := 0; g < n; g++ {
			if pc[g] >= len(m.ops[g]) {
				continue
			}
			op := m.ops[g][pc[g]]
			if op.kind == 'L' && held[op.m] {
				continue
			}
			any = true
			pc[g]++
			switch op.kind {
			case 'L':
				held[op.m] = true
			case 'U':
				held[op.m] = false
			}
			rec(prefix+fmt.Sprint(g), true)
			pc[g]--
			switch op.kind {
			case 'L':
				held[op.m] = false
			case 'U':
				held[op.m] = true
			}
		}
		if !any {
			out = append(out, prefix)
		}
	}
	rec("", false)
	slices.Sort(out)
	return out
}

var (
	lockedWrites = model{"locked-writes", [][]mop{
		{{'L', 0}, {'W', 0}, {'U', 0}},
		{{'L', 0}, {'W', 0}, {'U', 0}},
		{{'W', 1}, {'L', 0}, {'U', 0}},
	}}
	lockOrder = model{"lock-order-deadlock", [][]mop{
		{},
		{{'L', 0}, {'L', 1}, {'U', 1}, {'U', 0}},
		{{'L', 1}, {'L', 0}, {'U', 0}, {'U', 1}},
	}}
)

// interleavings lists every interleaving of goroutines 1..len(steps) executing steps[i]
// steps each, after the step of G0 that starts them: the permutations of a multiset.
func interleavings(steps ...int) []string {
	var out []string
	left := slices.Clone(steps)
	var rec func(prefix string, rest int)
	rec = func(prefix string, rest int) {
		if rest == 0 {
			out = append(out, prefix)
			return
		}
		for i := range left {
			if left[i] > 0 {
				left[i]--
				rec(prefix+fmt.Sprint(i+1), rest-1)
				left[i]++
			}
		}
	}
	total := 0
	for _, s := range steps {
		total += s
	}
	rec("0", total)
	slices.Sort(out)
	return out
}

func multinomial(steps ...int) int {
	res, n := 1, 0
	for _, k := range steps {
		for i := 1; i <= k; i++ {
			n++
			res = res * n / i
		}
	}
	return res
}

func gs(r run) string { return r.gs }

// TestDFSVisitsEveryScheduleOnce checks that DFS executes exactly the terminal schedules of
// small programs, each once, against enumerations that do not use the engine.
func TestDFSVisitsEveryScheduleOnce(t *testing.T) {
	tests := []struct {
		name string
		body func(*engine.T)
		want []string
	}{
		{"straight-2-2", straightLine(2, 2), interleavings(2, 2)},
		{"straight-2-2-1", straightLine(2, 2, 1), interleavings(2, 2, 1)},
		{"straight-3-1-1-1", straightLine(3, 1, 1, 1), interleavings(3, 1, 1, 1)},
		{lockedWrites.name, lockedWrites.body, lockedWrites.enumerate()},
		{lockOrder.name, lockOrder.body, lockOrder.enumerate()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs, rep := explore(t, tc.body, strategy.NewDFS(), 100_000)
			got := set(runs, gs)
			if !slices.Equal(got, tc.want) {
				t.Fatalf("DFS explored %d schedules:\n%v\nwant %d:\n%v", len(got), got, len(tc.want), tc.want)
			}
			if dup := duplicates(got); dup != "" {
				t.Fatalf("schedule %s explored twice", dup)
			}
			if want := fmt.Sprintf("all %d schedules explored", len(tc.want)); rep.Stopped != "exhausted" || rep.Exhausted != want {
				t.Fatalf("stopped %q: %q, want %q", rep.Stopped, rep.Exhausted, want)
			}
			if runs[0].preemp != 0 {
				t.Errorf("first schedule %s has %d preemptions, want the non-preemptive one", runs[0].gs, runs[0].preemp)
			}
		})
	}
	// The count of straight-line interleavings is the multinomial coefficient.
	if n, want := len(interleavings(3, 1, 1, 1)), multinomial(3, 1, 1, 1); n != want || want != 120 {
		t.Fatalf("enumeration gives %d interleavings, multinomial %d, want 120", n, want)
	}
}

func duplicates(sorted []string) string {
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return sorted[i]
		}
	}
	return ""
}

// TestDFSOrder checks the order of §3: left-recursive, children in creation order starting
// with the most recently executing goroutine, round-robin.
func TestDFSOrder(t *testing.T) {
	runs, _ := explore(t, straightLine(1, 1, 1), strategy.NewDFS(), 100)
	var got []string
	for _, r := range runs {
		got = append(got, r.gs)
	}
	// After G2's only step, round-robin goes on with G3, then wraps to G1.
	want := []string{"0123", "0132", "0231", "0213", "0312", "0321"}
	if !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	// After G2 ran, its successor in round-robin order comes first: 0 2 3 1, not 0 2 1 3.
	runs, _ = explore(t, straightLine(1, 2, 1), strategy.NewDFS(), 100)
	if runs[0].gs != "01223" {
		t.Fatalf("first schedule %s, want 01223", runs[0].gs)
	}
	for _, r := range runs {
		if strings.HasPrefix(r.gs, "021") {
			t.Fatalf("%s: after G2, G1 is tried before G3 (want round-robin 0 2 2 3 1 first)", r.gs)
		}
		if strings.HasPrefix(r.gs, "0223") {
			break
		}
	}
}

// choiceProgram drives a strategy by hand through a tree with a data choice: each execution
// makes a 3-way choice, then picks between G0 (last, enabled) and G1.
func choiceProgram(t *testing.T, s engine.Strategy) []string {
	t.Helper()
	var out []string
	for s.Begin() {
		if len(out) > 100 {
			t.Fatal("no end")
		}
		d1 := (&engine.Decision{Step: 1, Last: engine.NoGoroutine}).WithEnabled(0)
		g1 := s.Pick(d1)
		c := s.Choose(&engine.Choice{N: 3, Step: 1, G: 0})
		d2 := (&engine.Decision{Step: 2, Last: 0, LastEnabled: true, LastOp: engine.OpGo, Goroutines: 2}).WithEnabled(0, 1)
		g2 := s.Pick(d2)
		out = append(out, fmt.Sprintf("%v%d%v", g1, c, g2))
		s.End(&engine.Result{Steps: 2, Goroutines: 2})
	}
	return out
}

// TestDataChoicesAreBranchPoints checks that a data choice is a node of the schedule tree:
// DFS takes each alternative; IPB branches on it for free; IDB charges k delays for
// alternative k.
func TestDataChoicesAreBranchPoints(t *testing.T) {
	all := []string{"G00G0", "G00G1", "G01G0", "G01G1", "G02G0", "G02G1"}
	if got := choiceProgram(t, strategy.NewDFS()); !slices.Equal(got, all) {
		t.Errorf("dfs: %v, want %v", got, all)
	}
	ipb := strategy.NewIPB(0)
	if got, want := choiceProgram(t, ipb), []string{"G00G0", "G01G0", "G02G0"}; !slices.Equal(got, want) {
		t.Errorf("ipb ≤ 0: %v, want %v", got, want)
	}
	idb := strategy.NewIDB(-1)
	var got []string
	for _, x := range choiceProgram(t, idb) {
		got = append(got, x)
	}
	want := []string{"G00G0", "G00G1", "G01G0", "G01G1", "G02G0", "G02G1"}
	if slices.Sort(got); !slices.Equal(got, want) {
		t.Errorf("idb: %v, want every schedule once", got)
	}
	idb = strategy.NewIDB(1)
	// Bound 0, then the two branches of cost 1 in the order they were deferred.
	if got, want := choiceProgram(t, idb), []string{"G00G0", "G01G0", "G00G1"}; !slices.Equal(got, want) {
		t.Errorf("idb ≤ 1: %v, want %v", got, want)
	}
	if got := idb.Exhausted(); got != "all 3 schedules with ≤ 1 delays explored" {
		t.Errorf("exhausted: %q", got)
	}
}

// TestNondeterminismFallsBack checks that a systematic search run alone on a program that
// does not repeat itself does not explore something else silently, nor stop the run with an
// error (interleave test -strategy dfs exited 2 on a test that reads runtime.fastrand): it
// leaves with a notice saying why, as it leaves a portfolio, and random walks go on to the
// budget.
func TestNondeterminismFallsBack(t *testing.T) {
	for _, name := range []string{"dfs", "ipb", "idb"} {
		t.Run(name, func(t *testing.T) {
			runs := 0
			body := func(t *engine.T) {
				runs++
				var x int
				n := 1
				if runs > 1 {
					n = 0 // the second execution starts one goroutine fewer
				}
				fs := []func(){}
				for i := 0; i < n+1; i++ {
					fs = append(fs, func() { engine.Write(unsafe.Pointer(&x), "w") })
				}
				engine.GoAll(fs, "go")
				engine.Write(unsafe.Pointer(&x), "w0")
			}
			s, err := strategy.New(name, nil, 7)
			if err != nil {
				t.Fatal(err)
			}
			rep := engine.Explore(body, engine.Config{Strategy: s, Schedules: 10})
			if rep.Err != nil || rep.Stopped != "schedules" || rep.Schedules != 10 {
				t.Fatalf("stopped by %s after %d schedules with %v, want the budget of 10 and no error", rep.Stopped, rep.Schedules, rep.Err)
			}
			if len(rep.Notices) != 1 || !strings.HasPrefix(rep.Notices[0], name+" left after ") || !strings.Contains(rep.Notices[0], "random walks went on") ||
				!strings.Contains(rep.Notices[0], name+": the program is nondeterministic") {
				t.Errorf("notices %q, want %s's leaving, with why", rep.Notices, name)
			}
			if p := s.Params(); p["fallback"] != "random" || p["seed"] == "" {
				t.Errorf("params after the fallback %v, want fallback random and the walk's seed", p)
			}
			t.Log(rep.Notices[0])
		})
	}
}

// BenchmarkStrategies measures whole executions of a small program under each strategy
// (ns/op is per schedule).
func BenchmarkStrategies(b *testing.B) {
	body := straightLine(3, 3, 3)
	for _, name := range []string{"random", "pct", "dfs", "ipb", "idb"} {
		b.Run(name, func(b *testing.B) {
			s, err := strategy.New(name, nil, 1)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			rep := engine.Explore(body, engine.Config{Strategy: s, Schedules: b.N, KeepGoing: true})
			if rep.Schedules == 0 {
				b.Fatal("no schedule")
			}
		})
	}
}
