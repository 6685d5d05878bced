package strategy_test

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// chainReverse starts n goroutines of l steps each (writes to their own variables); the bug
// needs them to run one after another in reverse creation order, each entirely before the
// next one starts: G_n, then G_{n−1}, …, then G_1. Every goroutine's first step must come
// after the last step of the goroutine created after it — n−1 least likely ordering edges
// a_L → b_1 in one execution, the secondary orders of randomized scheduling (seed 000, §IV).
// PCT needs only the right priority order and change points that do not fall in the wrong
// goroutine: a bug of depth 1.
func chainReverse(n, l int) func(*engine.T) {
	return func(t *engine.T) {
		count := make([]int, n)
		after := make([]bool, n) // goroutine i started after every later one ended
		fs := make([]func(), n)
		for i := range fs {
			fs[i] = func() {
				for j := 0; j < l; j++ {
					engine.Write(unsafe.Pointer(&count[i]), "chain.w")
					if j == 0 {
						after[i] = true
						for k := i + 1; k < n; k++ {
							after[i] = after[i] && count[k] == l
						}
					}
					count[i]++
				}
				if i == 0 && !slices.Contains(after, false) {
					panic("chain: the goroutines ran one after another in reverse order")
				}
			}
		}
		engine.GoAll(fs, "chain.go")
	}
}

// readsFirst starts n goroutines that each make l private steps, then increment a shared
// counter in two steps (read, write); the bug needs every read before the first write. Each
// of the first n−1 reads must be followed at once by another goroutine's step while its own
// goroutine is still enabled: PCT can only do that with a change point at that very step, so
// with d = 3 (2 change points) it never finds the bug for n = 4 (a bug of depth 4), while
// randomized scheduling, which switches at every step, finds it in a few percent of its
// executions.
func readsFirst(n, l int) func(*engine.T) {
	return func(t *engine.T) {
		var x, reads, writes int
		own := make([]int, n)
		fs := make([]func(), n)
		for i := range fs {
			fs[i] = func() {
				for j := 0; j < l; j++ {
					engine.Write(unsafe.Pointer(&own[i]), "rf.own")
					own[i]++
				}
				engine.Read(unsafe.Pointer(&x), "rf.read")
				v := x
				reads++
				engine.Write(unsafe.Pointer(&x), "rf.write")
				if writes == 0 && reads == n {
					panic("reads first: every goroutine read the counter before the first write")
				}
				writes++
				x = v + 1
			}
		}
		engine.GoAll(fs, "rf.go")
	}
}

// pfSelect has a data choice: a select between two ready channels, so that Choose is
// exercised; the bug is taking b first.
func pfSelect(t *engine.T) {
	a := engine.MakeChan[int](1, "sel.a")
	b := engine.MakeChan[int](1, "sel.b")
	var wg sync.WaitGroup
	engine.WGAdd(&wg, 2, "sel.add")
	engine.Go(func() { engine.Send(a, 1, "sel.send.a"); engine.WGDone(&wg, "sel.done") }, "sel.go.a")
	engine.Go(func() { engine.Send(b, 2, "sel.send.b"); engine.WGDone(&wg, "sel.done") }, "sel.go.b")
	engine.WGWait(&wg, "sel.wait")
	ra, rb := engine.RecvCase(a), engine.RecvCase(b)
	if engine.Select("sel.select", false, ra, rb) == 1 {
		panic("select took b first")
	}
}

// pfRun is one execution as the portfolio tests see it.
type pfRun struct {
	member string            // Params()["member"] ("" for a strategy alone)
	params map[string]string // the strategy's Params after the execution
	sched  string            // the goroutine and position of every step, and the choices
	bug    bool
	bound  int // the bound of the (member) strategy when it is systematic
}

// pfExplore runs body under s for at most limit executions (until exhaustion otherwise), going
// on after bugs, and returns every execution.
func pfExplore(t *testing.T, body func(*engine.T), s engine.Strategy, limit int) ([]pfRun, *engine.Report) {
	t.Helper()
	var runs []pfRun
	rep := engine.Explore(body, engine.Config{
		Strategy:  s,
		KeepGoing: true,
		Record:    true,
		Schedules: limit,
		MaxSteps:  10_000,
		OnExecution: func(n int, r *engine.Result) {
			var b strings.Builder
			for _, st := range r.Schedule {
				if st.Kind == schedule.Run {
					fmt.Fprintf(&b, "%d:%s ", st.G, st.Pos)
				} else {
					fmt.Fprintf(&b, "[%d/%d] ", st.Value, st.N)
				}
			}
			x := pfRun{params: maps.Clone(s.Params()), sched: b.String(), bug: r.Bug != nil}
			x.member = x.params["member"]
			cur := s
			if p, ok := s.(*strategy.Portfolio); ok {
				cur = p.Member()
			}
			if sy, ok := cur.(interface{ Bound() int }); ok {
				x.bound = sy.Bound()
			}
			runs = append(runs, x)
		},
	})
	if rep.Err != nil {
		t.Fatalf("%s: %v", s.Name(), rep.Err)
	}
	return runs, rep
}

// byMember groups a portfolio's executions by member label, in order.
func byMember(runs []pfRun) map[string][]pfRun {
	out := map[string][]pfRun{}
	for _, r := range runs {
		out[r.member] = append(out[r.member], r)
	}
	return out
}

// unprefixed returns the parameters of member label in a portfolio's params.
func unprefixed(params map[string]string, label string) map[string]string {
	out := map[string]string{}
	for k, v := range params {
		if rest, ok := strings.CutPrefix(k, label+"."); ok {
			out[rest] = v
		}
	}
	return out
}

var strideP2Param = strconv.FormatFloat(strideP2, 'g', -1, 64)

// pfMembers returns the default members built explicitly, with the given seeds; IDB is
// bounded (at 50 delays, more than these programs have) so that its exhaustion does not end
// the portfolio, as an unbounded systematic member's does.
func pfMembers(t *testing.T, seed uint64) []engine.Strategy {
	t.Helper()
	pct, err := strategy.NewPCT(strategy.PCTConfig{D: 3, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return []engine.Strategy{pct, strategy.NewPOS(seed + 1), newStride(t, strategy.StrideConfig{P: strideP2, Seed: seed + 2}), strategy.NewIDB(50)}
}

// TestPortfolioMembersKeepState checks that each member lives across its own executions
// exactly as it does alone: its k-th execution under the portfolio is its k-th execution
// alone (same schedule, same data choices, same parameters, and for IDB the same bound), for
// every member — IDB progressing through its bounds until it is exhausted, PCT refining its
// estimates, stride learning its lengths after 100 executions — and that IDB, once
// exhausted, leaves the others to go on.
func TestPortfolioMembersKeepState(t *testing.T) {
	const per = 130 // executions per member alone: past stride's 100 learning executions
	tests := []struct {
		name string
		body func(*engine.T)
		// idb is the number of schedules of the program, which IDB explores in full.
		idb int
	}{
		{"straightLine(2,2,2)", straightLine(2, 2, 2), 90},
		{"figure1", figure1, 0},
		{"select", pfSelect, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := strategy.NewPortfolio(pfMembers(t, 5)...)
			if err != nil {
				t.Fatal(err)
			}
			runs, _ := pfExplore(t, tc.body, p, 4*per)
			got := byMember(runs)
			for i, alone := range pfMembers(t, 5) {
				want, _ := pfExplore(t, tc.body, alone, per)
				label := alone.Name()
				mine := got[label]
				if _, exhausted := alone.(engine.Exhauster); exhausted && len(want) < per {
					// IDB exhausted alone: exactly as many executions in the portfolio.
					if len(mine) != len(want) {
						t.Errorf("member %d (%s): %d executions in the portfolio, %d alone (exhausted)", i, label, len(mine), len(want))
					}
					if tc.idb > 0 && len(want) != tc.idb {
						t.Errorf("%s alone explored %d schedules, want %d", label, len(want), tc.idb)
					}
				} else if len(mine) < len(want) {
					t.Errorf("member %d (%s): %d executions in the portfolio, want ≥ %d", i, label, len(mine), len(want))
				}
				for k := 0; k < min(len(mine), len(want)); k++ {
					m, w := mine[k], want[k]
					if m.params["member.execution"] != strconv.Itoa(k+1) {
						t.Errorf("%s execution %d: member.execution = %q", label, k+1, m.params["member.execution"])
					}
					if m.sched != w.sched || m.bug != w.bug || m.bound != w.bound || !maps.Equal(unprefixed(m.params, label), w.params) {
						t.Fatalf("%s execution %d:\nportfolio %s bug=%v bound=%d %v\nalone     %s bug=%v bound=%d %v",
							label, k+1, m.sched, m.bug, m.bound, unprefixed(m.params, label), w.sched, w.bug, w.bound, w.params)
					}
				}
				if label == "idb" {
					t.Logf("%s: idb explored %d schedules, bounds 0..%d, identical to idb alone", tc.name, len(mine), mine[len(mine)-1].bound)
				}
				if label == "stride" && len(mine) > 100 && unprefixed(mine[100].params, label)["lengths"] == "" {
					t.Errorf("stride's 101st execution in the portfolio has no learned lengths: %v", mine[100].params)
				}
			}
		})
	}
}

// TestPortfolioRotation checks the round-robin order, one execution each, with the members
// that are exhausted leaving the rotation, and the portfolio's own exhaustion when every
// member is exhausted, with every member's guarantee.
func TestPortfolioRotation(t *testing.T) {
	tests := []struct {
		name    string
		members string
		body    func(*engine.T)
		limit   int
	}{
		{"default/straightLine(2,2)", "", straightLine(2, 2), 60},
		{"default/figure1", "", figure1, 400},
		{"dfs+idb/figure1", "dfs+idb", figure1, 0},
		{"ipb:max=0+pos+dfs/straightLine(2,1)", "ipb:max=0+pos+dfs", straightLine(2, 1), 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			params := map[string]string{}
			if tc.members != "" {
				params["members"] = tc.members
			}
			s, err := strategy.New("portfolio", params, 3)
			if err != nil {
				t.Fatal(err)
			}
			p := s.(*strategy.Portfolio)
			// How many executions each member has alone before it is exhausted (-1: never).
			var labels []string
			var budget []int
			var guarantees []string
			var complete []bool
			for _, m := range p.Members() {
				label := m.Name()
				if fb, ok := m.(engine.FairBounder); ok && fb.FairSteps() > 0 {
					label = "unfair-" + label // the default's unfair member
				}
				labels = append(labels, label)
				c, ok := m.(interface{ Complete() bool })
				complete = append(complete, ok && c.Complete())
				if _, ok := m.(engine.Exhauster); !ok {
					budget, guarantees = append(budget, -1), append(guarantees, "")
					continue
				}
				fresh, err := strategy.New(m.Name(), m.Params(), 0)
				if err != nil {
					t.Fatal(err)
				}
				runs, rep := pfExplore(t, tc.body, fresh, 10_000)
				if rep.Stopped != "exhausted" {
					t.Fatalf("%s alone: stopped by %s", m.Name(), rep.Stopped)
				}
				budget, guarantees = append(budget, len(runs)), append(guarantees, rep.Exhausted)
			}
			// The expected rotation.
			var want []string
			used := make([]int, len(labels))
			var left []int
			completeMsg := ""
			for i := 0; tc.limit == 0 || len(want) < tc.limit; i = (i + 1) % len(labels) {
				if budget[i] >= 0 && used[i] == budget[i] {
					if !slices.Contains(left, i) {
						left = append(left, i)
					}
					if complete[i] {
						// An unbounded systematic member covered the whole schedule space.
						completeMsg = labels[i] + ": " + guarantees[i]
						break
					}
					if len(left) == len(labels) {
						break
					}
					continue
				}
				used[i]++
				want = append(want, labels[i])
			}
			runs, rep := pfExplore(t, tc.body, p, tc.limit)
			var gotOrder []string
			for _, r := range runs {
				gotOrder = append(gotOrder, r.member)
			}
			if !slices.Equal(gotOrder, want) {
				t.Fatalf("rotation\n got %v\nwant %v", gotOrder, want)
			}
			var parts []string
			var running []string
			for _, i := range left {
				parts = append(parts, labels[i]+": "+guarantees[i])
			}
			for i := range labels {
				if !slices.Contains(left, i) {
					running = append(running, labels[i])
				}
			}
			wantMsg := ""
			switch {
			case completeMsg != "":
				wantMsg = completeMsg
				if rep.Stopped != "exhausted" || rep.Exhausted != wantMsg {
					t.Errorf("report: stopped by %s, exhausted %q; want exhausted, %q", rep.Stopped, rep.Exhausted, wantMsg)
				}
			case len(running) == 0:
				wantMsg = "every member exhausted: " + strings.Join(parts, "; ")
				if rep.Stopped != "exhausted" || rep.Exhausted != wantMsg {
					t.Errorf("report: stopped by %s, exhausted %q; want exhausted, %q", rep.Stopped, rep.Exhausted, wantMsg)
				}
			case len(parts) > 0:
				wantMsg = strings.Join(parts, "; ") + " (" + strings.Join(running, ", ") + " still running)"
				if rep.Stopped != "schedules" {
					t.Errorf("report: stopped by %s, want schedules", rep.Stopped)
				}
			}
			if got := p.Exhausted(); got != wantMsg {
				t.Errorf("Exhausted() = %q, want %q", got, wantMsg)
			}
			t.Logf("%d executions %s; exhausted: %q", len(runs), summarize(gotOrder), p.Exhausted())
		})
	}
}

// summarize counts the executions of each member.
func summarize(order []string) string {
	count := map[string]int{}
	var names []string
	for _, m := range order {
		if count[m] == 0 {
			names = append(names, m)
		}
		count[m]++
	}
	var parts []string
	for _, m := range names {
		parts = append(parts, fmt.Sprintf("%s %d", m, count[m]))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// TestPortfolioParamsIdentifyTheMember checks the parameters of every execution of the
// default portfolio: the member, which of its executions, and its parameters prefixed by its
// label; and that PortfolioMember turns them back into a strategy that runs that very
// execution again (for IDB and PERIOD, as its member.execution-th).
func TestPortfolioParamsIdentifyTheMember(t *testing.T) {
	s, err := strategy.New("portfolio", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	body := straightLine(3, 3, 3)         // 1,680 schedules: IDB stays in the rotation
	runs, _ := pfExplore(t, body, s, 640) // stride's executions 101..105 run with learned lengths
	// PERIOD alone exhausts its bound on body after periodRuns executions, and then leaves
	// the rotation.
	alone, err := strategy.New("period", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	periodRuns, _ := pfExplore(t, body, alone, 10_000)
	if len(periodRuns) < 50 || len(periodRuns) > 100 {
		t.Fatalf("period alone: %d executions, want 50–100 (the test's indices assume it)", len(periodRuns))
	}
	order := []string{"pct", "pos", "stride", "idb", "period", "greybox", "unfair-idb"}
	execs := map[string]int{}
	turn := 0
	for i, r := range runs {
		label := order[turn%len(order)]
		for label == "period" && execs["period"] == len(periodRuns) || label == "unfair-idb" && execs[label] == 1 {
			// Exhausted: PERIOD after periodRuns executions, the unfair member (the one
			// schedule of delay bounding with no delay) after its first.
			turn++
			label = order[turn%len(order)]
		}
		// After its first hundred executions, greybox's turns may be longer while it is
		// learning (TestPortfolioLearnerTurns).
		if label == "greybox" && i+1 < len(runs) && runs[i+1].member == "greybox" && execs["greybox"]+1 >= 100 {
			turn--
		}
		turn++
		execs[label]++
		if r.member != label || r.params["member.execution"] != strconv.Itoa(execs[label]) || r.params["members"] != strategy.DefaultPortfolioMembers {
			t.Fatalf("execution %d: params %v, want member %s, execution %d", i+1, r.params, label, execs[label])
		}
		for k := range r.params {
			if k != "member" && k != "member.execution" && k != "members" && !strings.HasPrefix(k, label+".") {
				t.Errorf("execution %d: parameter %q is not %s's", i+1, k, label)
			}
		}
	}
	if p := runs[0].params; p["pct.d"] != "3" || p["pct.seed"] == "" {
		t.Errorf("pct's params %v, want pct.d = 3 and pct.seed", p)
	}
	if p := runs[2].params; p["stride.p"] != strideP2Param || p["stride.seed"] == "" {
		t.Errorf("stride's params %v, want stride.p = %s and stride.seed", p, strideP2Param)
	}
	nth := func(member string, k int) int {
		for i, r := range runs {
			if r.member == member && r.params["member.execution"] == strconv.Itoa(k) {
				return i
			}
		}
		t.Fatalf("no execution %d of %s", k, member)
		return 0
	}
	if p := runs[nth("stride", 104)].params; p["stride.lengths"] == "" {
		t.Errorf("stride's 104th execution: params %v, want the learned lengths", p)
	}
	for _, i := range []int{0, 1, 2, 3, 4, 13, 57, 203, 412, nth("period", len(periodRuns)), nth("stride", 104), nth("idb", 105)} {
		r := runs[i]
		name, mp, err := strategy.PortfolioMember(r.params)
		if err != nil {
			t.Fatal(err)
		}
		if mp["mutant"] != "" {
			// A greybox mutant depends on the corpus its earlier executions built: its
			// schedule file reproduces it, not its seed (greybox's own tests).
			continue
		}
		again, err := strategy.New(name, mp, 999)
		if err != nil {
			t.Fatalf("execution %d: New(%q, %v): %v", i+1, name, mp, err)
		}
		n := 1
		if name == "idb" || name == "period" {
			n, _ = strconv.Atoi(r.params["member.execution"])
		}
		rs, _ := pfExplore(t, body, again, n)
		if got := rs[len(rs)-1].sched; got != r.sched {
			t.Errorf("execution %d (%s %v) again: %s, first time %s", i+1, name, mp, got, r.sched)
		}
	}
}

// TestPortfolioNoSingleBlindSpot runs two programs on which the default members disagree
// (the trade-off of seed 000, §IV: promoting secondary orders demotes primary ones):
// chainReverse(3, 20), a depth-1 bug for PCT made of two secondary orders that randomized
// stride and POS rarely cover, and readsFirst(4, 1), a depth-4 bug that PCT with d = 3 can
// never find and that randomized scheduling (stride) finds in a few percent of executions.
// Each member alone is measured on the same executions; then the default portfolio must find
// both bugs within 1,000 executions (250 per member) for each of ten seeds.
func TestPortfolioNoSingleBlindSpot(t *testing.T) {
	const (
		alone  = 2000 // executions of each member alone, per seed
		budget = 1000 // executions of the portfolio
	)
	tests := []struct {
		name string
		body func(*engine.T)
		// best finds the bug in at least 10 times as many executions as blind, and within
		// the first 100 of its executions for every seed.
		best, blind string
	}{
		{"chainReverse(3,20)", chainReverse(3, 20), "pct", "stride"},
		{"readsFirst(4,1)", readsFirst(4, 1), "stride", "pct"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			found := map[string]int{}
			for seed := uint64(1); seed <= 3; seed++ {
				line := fmt.Sprintf("seed %d, %d executions alone:", seed, alone)
				for _, m := range pfMembers(t, seed) {
					_, rep := pfExplore(t, tc.body, m, alone)
					found[m.Name()] += rep.Buggy
					line += fmt.Sprintf(" %s %d buggy (first at %d);", m.Name(), rep.Buggy, rep.FirstAt)
					if m.Name() == tc.best && (rep.FirstAt == 0 || rep.FirstAt > 100) {
						t.Errorf("%s alone, seed %d: first bug at execution %d, want ≤ 100", m.Name(), seed, rep.FirstAt)
					}
				}
				t.Log(line)
			}
			t.Logf("all seeds: %v", found)
			if found[tc.best] < 10*found[tc.blind] || found[tc.best] == 0 {
				t.Errorf("%s found the bug %d times, %s %d: not the contrast the test needs", tc.best, found[tc.best], tc.blind, found[tc.blind])
			}
			var firsts []int
			for seed := uint64(1); seed <= 10; seed++ {
				s, err := strategy.New("portfolio", nil, seed)
				if err != nil {
					t.Fatal(err)
				}
				rep := engine.Explore(tc.body, engine.Config{Strategy: s, Schedules: budget})
				firsts = append(firsts, rep.FirstAt)
				if rep.First == nil {
					t.Errorf("portfolio, seed %d: no bug in %d executions", seed, budget)
				}
			}
			t.Logf("portfolio, seeds 1..10: first bug at executions %v (budget %d)", firsts, budget)
		})
	}
}

// TestPortfolioForwardsErr checks what a member's Err does. IDB's report of a
// nondeterministic program takes IDB out of the rotation, with a notice, and the others go on
// to the budget (the program's steps vary from one execution to the next: IDB's search cannot
// go on, a randomized member's can); when IDB is the last member in the rotation, its error
// stops the exploration, as the portfolio's Err. A member with no Err leaves the engine's own.
func TestPortfolioForwardsErr(t *testing.T) {
	var calls int
	nondeterministic := func(t *engine.T) {
		calls++
		if calls%4 == 2 { // IDB's first execution, not its second
			engine.Go(func() { engine.Gosched("nd.a") }, "nd.go")
		}
		engine.Gosched("nd.main")
		engine.Gosched("nd.main")
	}
	s, err := strategy.New("portfolio", map[string]string{"members": "pos+idb"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	rep := engine.Explore(nondeterministic, engine.Config{Strategy: s, Schedules: 100})
	if rep.Stopped != "schedules" || rep.Err != nil || rep.Schedules != 100 {
		t.Fatalf("stopped by %s after %d schedules with %v, want the budget of 100 and no error", rep.Stopped, rep.Schedules, rep.Err)
	}
	if len(rep.Notices) != 1 || !strings.HasPrefix(rep.Notices[0], "idb left the portfolio after 2 execution(s), the others went on: idb: the program is nondeterministic") {
		t.Errorf("notices %q, want idb's leaving", rep.Notices)
	}
	if ex := s.(engine.Exhauster).Exhausted(); !strings.HasPrefix(ex, "idb: left: idb: the program is nondeterministic") {
		t.Errorf("Exhausted %q, want idb's leaving", ex)
	}

	calls = 0
	s, err = strategy.New("portfolio", map[string]string{"members": "idb"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	nondeterministicAlone := func(t *engine.T) {
		calls++
		if calls%2 == 1 {
			engine.Go(func() { engine.Gosched("nd.a") }, "nd.go")
		}
		engine.Gosched("nd.main")
		engine.Gosched("nd.main")
	}
	rep = engine.Explore(nondeterministicAlone, engine.Config{Strategy: s, Schedules: 100})
	if rep.Stopped != "error" || rep.Err == nil || !strings.HasPrefix(rep.Err.Error(), "idb: the program is nondeterministic") {
		t.Fatalf("alone: stopped by %s with %v, want idb's error", rep.Stopped, rep.Err)
	}
	if rep.Err != s.(engine.Aborter).Err() {
		t.Errorf("report error %v, portfolio Err %v", rep.Err, s.(engine.Aborter).Err())
	}
	t.Logf("after %d executions: %v", rep.Schedules, rep.Err)

	pos, _ := strategy.New("portfolio", map[string]string{"members": "pos"}, 1)
	if err := pos.(engine.Aborter).Err(); err != nil {
		t.Errorf("Err before Begin: %v", err)
	}
	pos.Begin()
	if err := pos.(engine.Aborter).Err(); err != nil {
		t.Errorf("Err of a member without one: %v", err)
	}
}

// TestPortfolioConfiguration checks the members parameter: the default, explicit members
// with parameters, repeated names, and the errors.
func TestPortfolioConfiguration(t *testing.T) {
	tests := []struct {
		members string // "-" for no members parameter
		labels  []string
		params  []map[string]string // expected subsets of each member's Params
		wantErr string
	}{
		{members: "-", labels: []string{"pct", "pos", "stride", "idb"},
			params: []map[string]string{{"d": "3"}, {}, {"p": strideP2Param, "learn": "100"}, {}}},
		{members: "pct:d=2:n=5+idb:max=1", labels: []string{"pct", "idb"},
			params: []map[string]string{{"d": "2", "n": "5"}, {"max": "1"}}},
		{members: " random + stride:smax=4 ", labels: []string{"random", "stride"},
			params: []map[string]string{{}, {"smax": "4"}}},
		{members: "pct:d=2+pct:d=3+pos", labels: []string{"pct#1", "pct#2", "pos"},
			params: []map[string]string{{"d": "2"}, {"d": "3"}, {}}},
		{members: "random:seed=42", labels: []string{"random"}, params: []map[string]string{{"seed": "42"}}},
		{members: "", wantErr: "portfolio: parameter members is empty"},
		{members: "pct++idb", wantErr: `portfolio: member 2 of "pct++idb" has no name`},
		{members: "pct:d", wantErr: `portfolio: member 1 (pct): parameter "d": want key=value`},
		{members: "pct:d=0", wantErr: "portfolio: member 1: pct: parameter d must be ≥ 1, got 0"},
		{members: "idb+nope", wantErr: `portfolio: member 2: unknown strategy "nope" (known: random, pct, pos, rapos, stride, greybox, period, dfs, ipb, idb, portfolio)`},
		{members: "pos+portfolio", wantErr: "portfolio: member 2: a portfolio cannot be a member of a portfolio"},
	}
	for _, tc := range tests {
		params := map[string]string{"members": tc.members}
		if tc.members == "-" {
			params = nil
		}
		s, err := strategy.New("portfolio", params, 7)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("members %q: error %v, want %q", tc.members, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("members %q: %v", tc.members, err)
			continue
		}
		p := s.(*strategy.Portfolio)
		for i, label := range tc.labels {
			if !p.Begin() {
				t.Fatalf("members %q: Begin returned false", tc.members)
			}
			got := p.Params()
			if got["member"] != label {
				t.Errorf("members %q, execution %d: member %q, want %q", tc.members, i+1, got["member"], label)
			}
			for k, v := range tc.params[i] {
				if got[label+"."+k] != v {
					t.Errorf("members %q, execution %d: %s.%s = %q, want %q (params %v)", tc.members, i+1, label, k, got[label+"."+k], v, got)
				}
			}
			name, mp, err := strategy.PortfolioMember(got)
			if err != nil || name != p.Member().Name() || !maps.Equal(mp, p.Member().Params()) {
				t.Errorf("PortfolioMember(%v) = %q, %v, %v; want %q, %v", got, name, mp, err, p.Member().Name(), p.Member().Params())
			}
		}
	}
	// Seeds: the same seed gives the same members, another seed others.
	first := func(seed uint64) string {
		s, _ := strategy.New("portfolio", map[string]string{"members": "pct+pos"}, seed)
		s.Begin()
		return s.Params()["pct.seed"]
	}
	if first(7) != first(7) || first(7) == first(8) {
		t.Errorf("pct.seed: %s, %s with seed 7, %s with seed 8", first(7), first(7), first(8))
	}
	if _, err := strategy.New("portfolio", map[string]string{"seed": "1"}, 1); err == nil || err.Error() != `portfolio: unknown parameter "seed" (known: members)` {
		t.Errorf("portfolio with seed: %v", err)
	}
	if _, err := strategy.NewPortfolio(); err == nil {
		t.Error("NewPortfolio(): no error")
	}
	if _, _, err := strategy.PortfolioMember(map[string]string{"pct.d": "3"}); err == nil {
		t.Error("PortfolioMember without member: no error")
	}
}

// TestPortfolioObservesAtomicsOfItsMembers: a portfolio observes the atomic variables in the
// executions of a member that does (greybox), and in the other members' while such a member
// observes them (Observer); not in a portfolio none of whose members does.
func TestPortfolioObservesAtomicsOfItsMembers(t *testing.T) {
	for _, tc := range []struct {
		members []engine.Strategy
		want    []bool
	}{
		{[]engine.Strategy{strategy.NewGreybox(1), strategy.NewRandom(1)}, []bool{true, true, true, true}},
		{[]engine.Strategy{strategy.NewPOS(1), strategy.NewRandom(1)}, []bool{false, false, false, false}},
	} {
		p, err := strategy.NewPortfolio(tc.members...)
		if err != nil {
			t.Fatal(err)
		}
		var observed []bool
		var states []bool
		engine.Explore(func(*engine.T) {
			var v atomic.Int32
			engine.AtomicInt32Store(&v, 1, "o.go:1")
			engine.AtomicInt32Load(&v, "o.go:2")
		}, engine.Config{Strategy: &stateSpy{Portfolio: p, saw: &states}, Schedules: 4, KeepGoing: true,
			OnExecution: func(int, *engine.Result) { observed = append(observed, p.ObservesAtomics()) }})
		if !slices.Equal(observed, tc.want) || !slices.Equal(states, tc.want) {
			t.Errorf("members %s: observed %v, a state seen %v, want %v", tc.members[0].Name(), observed, states, tc.want)
		}
	}
}

// stateSpy records, per execution, whether its last decision saw a state (not 0).
type stateSpy struct {
	*strategy.Portfolio
	saw  *[]bool
	seen bool
}

func (s *stateSpy) Pick(d *engine.Decision) engine.GID {
	s.seen = d.AtomicState() != 0
	return s.Portfolio.Pick(d)
}

func (s *stateSpy) End(r *engine.Result) {
	*s.saw = append(*s.saw, s.seen)
	s.Portfolio.End(r)
}
