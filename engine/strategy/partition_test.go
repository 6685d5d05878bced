package strategy_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// partitions are the ways the tests split a search: one level (workers or shards), and two
// (shards, then workers within each).
var partitions = []struct {
	name  string
	parts []strategy.Part
}{
	{"2", levels([]int{2})},
	{"3", levels([]int{3})},
	{"5", levels([]int{5})},
	{"2x2", levels([]int{2, 2})},
	{"3x2", levels([]int{3, 2})},
}

// levels returns every part of a partition with the given counts per level.
func levels(counts []int) []strategy.Part {
	parts := []strategy.Part{{}}
	for _, n := range counts {
		var next []strategy.Part
		for _, p := range parts {
			for i := 0; i < n; i++ {
				next = append(next, p.Within(i, n))
			}
		}
		parts = next
	}
	return parts
}

// TestPartitionSystematic checks that the parts of a partitioned DFS, IPB or IDB explore
// exactly the schedules of the whole search, each in one part only, and count them alone
// (the probes that learn the tree are not schedules).
func TestPartitionSystematic(t *testing.T) {
	programs := []struct {
		name string
		body func(*engine.T)
	}{
		{"straight-2-2-1", straightLine(2, 2, 1)},
		{"straight-3-1-1-1", straightLine(3, 1, 1, 1)},
		{lockedWrites.name, lockedWrites.body},
		{lockOrder.name, lockOrder.body},
		{"figure1", figure1},
	}
	strategies := []struct {
		name string
		new  func() engine.Strategy
	}{
		{"dfs", func() engine.Strategy { return strategy.NewDFS() }},
		{"ipb", func() engine.Strategy { return strategy.NewIPB(-1) }},
		{"idb", func() engine.Strategy { return strategy.NewIDB(-1) }},
		{"ipb-max-1", func() engine.Strategy { return strategy.NewIPB(1) }},
		{"idb-max-2", func() engine.Strategy { return strategy.NewIDB(2) }},
	}
	for _, prog := range programs {
		for _, st := range strategies {
			whole, rep := explore(t, prog.body, st.new(), 100_000)
			if rep.Stopped != "exhausted" {
				t.Fatalf("%s %s: stopped %q", prog.name, st.name, rep.Stopped)
			}
			want := set(whole, fullSchedule)
			for _, pt := range partitions {
				t.Run(fmt.Sprintf("%s/%s/%s", prog.name, st.name, pt.name), func(t *testing.T) {
					var got []string
					owner := map[string]string{}
					probes := 0
					for _, part := range pt.parts {
						s := st.new()
						if err := strategy.Partition(s, part); err != nil {
							t.Fatal(err)
						}
						runs, rep := explore(t, prog.body, s, 100_000)
						if rep.Stopped != "exhausted" || !strings.Contains(rep.Exhausted, "of part "+part.String()) {
							t.Fatalf("part %s stopped %q: %q", part, rep.Stopped, rep.Exhausted)
						}
						if rep.Schedules != len(runs) {
							t.Fatalf("part %s: report counts %d schedules, %d were reported", part, rep.Schedules, len(runs))
						}
						for _, r := range runs {
							if r.cost != r.bound {
								t.Errorf("part %s: schedule %s of cost %d explored at bound %d", part, r.gs, r.cost, r.bound)
							}
							l := fullSchedule(r)
							if o, dup := owner[l]; dup {
								t.Fatalf("schedule %s explored by part %s and by part %s", l, o, part)
							}
							owner[l] = part.String()
							got = append(got, l)
						}
						probes += rep.Probes
					}
					slices.Sort(got)
					if !slices.Equal(got, want) {
						t.Fatalf("the parts explored %d schedules, the whole search %d:\nparts: %v\nwhole: %v", len(got), len(want), got, want)
					}
					t.Logf("%d schedules in %d parts, %d probe executions", len(got), len(pt.parts), probes)
				})
			}
		}
	}
}

func fullSchedule(r run) string { return r.gs + " " + r.labels }

// TestPartitionSeeds checks that the parts of a randomized strategy run exactly the seeds
// of the whole run's executions, each in one part, in the whole run's order.
func TestPartitionSeeds(t *testing.T) {
	const budget = 23
	for _, name := range []string{"random", "pct", "pos", "rapos", "stride"} {
		numbered := map[int]string{} // by their number in the whole run, the parts' executions' seeds
		seedsOf := func(part strategy.Part, n int) []string {
			s, err := strategy.New(name, nil, 42)
			if err != nil {
				t.Fatal(err)
			}
			if err := strategy.Partition(s, part); err != nil {
				t.Fatal(err)
			}
			var out []string
			engine.Explore(straightLine(2, 1), engine.Config{
				Strategy: s, KeepGoing: true, Schedules: n, MaxSteps: 1000,
				OnExecution: func(int, *engine.Result) {
					out = append(out, s.Params()["seed"])
					// The execution's number in the whole run (engine.Numberer), which a
					// part's first bug is reported at: 0 in the whole run itself.
					if num := s.(engine.Numberer).Number(); part.Whole() && num != 0 || !part.Whole() && !ownerOf(num-1, part) {
						t.Errorf("%s, part %s: execution %d numbered %d", name, part, len(out), num)
					} else if !part.Whole() {
						numbered[num] = out[len(out)-1]
					}
				},
			})
			return out
		}
		whole := seedsOf(strategy.Part{}, budget)
		defer func() {
			// Each part's execution numbered k ran the whole run's k-th seed.
			for num, seed := range numbered {
				if num < 1 || num > len(whole) || whole[num-1] != seed {
					t.Errorf("%s: the execution numbered %d ran seed %s", name, num, seed)
				}
			}
		}()
		if len(whole) != budget || whole[0] == "" {
			t.Fatalf("%s: the whole run gave seeds %v", name, whole)
		}
		for _, pt := range partitions {
			t.Run(name+"/"+pt.name, func(t *testing.T) {
				var got []string
				byPart := map[string][]string{}
				for i, part := range pt.parts {
					// Execution e of the whole run is part i's when its levels' digits of
					// e are part i's (parts are listed in the order of those digits, the
					// outermost level varying slowest: e's owner is e mod the product of
					// the counts, read the other way round).
					mine := 0
					for e := 0; e < budget; e++ {
						if ownerOf(e, part) {
							mine++
						}
					}
					seeds := seedsOf(part, mine)
					byPart[part.String()] = seeds
					got = append(got, seeds...)
					_ = i
				}
				g := slices.Clone(got)
				slices.Sort(g)
				w := slices.Clone(whole)
				slices.Sort(w)
				if !slices.Equal(g, w) {
					t.Fatalf("the parts ran seeds %v, the whole run %v (%v)", g, w, byPart)
				}
				if dup := duplicates(g); dup != "" {
					t.Fatalf("seed %s run by two parts", dup)
				}
			})
		}
	}
}

// ownerOf says whether execution e of the whole run belongs to part, by the rule of
// strategy.Part written out independently.
func ownerOf(e int, part strategy.Part) bool {
	for _, l := range part.Levels {
		if e%l.Count != l.Index {
			return false
		}
		e /= l.Count
	}
	return true
}

// TestPartitionRefused checks the strategies that cannot be partitioned, and bad parts.
func TestPartitionRefused(t *testing.T) {
	two := strategy.Part{}.Within(0, 2)
	p, _ := strategy.New("period", nil, 1)
	if err := strategy.Partition(p, two); err == nil || !strings.Contains(err.Error(), "period cannot be partitioned") {
		t.Errorf("period: %v", err)
	}
	for _, s := range []string{"0/2", "3/2", "1/0", "x", "1/2/3"} {
		if _, err := strategy.ParsePart(s); err == nil {
			t.Errorf("ParsePart(%q) accepted", s)
		}
	}
	if p, err := strategy.ParsePart("2/4,1/2"); err != nil || p.String() != "2/4,1/2" {
		t.Errorf("ParsePart(2/4,1/2) = %v, %v", p, err)
	}
}

// TestPartitionPortfolioPeriod checks a partitioned portfolio with a PERIOD member, which
// cannot be split: the first part runs that member's whole search, exactly as the whole run
// does, with a turn per part at each round of its rotation, and the other part's rotation
// goes without it, saying so in its claim.
func TestPartitionPortfolioPeriod(t *testing.T) {
	body := straightLine(3, 3, 3)
	var order []string // the members of the last exploration's executions, in order
	byMember := func(members string, part strategy.Part, limit int) (map[string][]string, *engine.Report) {
		s, err := strategy.New("portfolio", map[string]string{"members": members}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := strategy.Partition(s, part); err != nil {
			t.Fatalf("part %v: %v", part, err)
		}
		runs, rep := pfExplore(t, body, s, limit)
		out := map[string][]string{}
		order = order[:0]
		for _, r := range runs {
			out[r.member] = append(out[r.member], r.sched)
			order = append(order, r.member)
		}
		return out, rep
	}
	first, second := strategy.Part{}.Within(0, 2), strategy.Part{}.Within(1, 2)
	whole, _ := byMember("pct+period", strategy.Part{}, 120)
	one, _ := byMember("pct+period", first, 60)
	if want := strings.Repeat("pct period period ", 20); strings.Join(order, " ")+" " != want {
		t.Errorf("the first part's rotation: %v, want pct and two turns of period", order)
	}
	two, _ := byMember("pct+period", second, 60)
	if len(whole["period"]) != 60 || len(one["period"]) != 40 {
		t.Fatalf("period's executions: %d in the whole run, %d in the first part; want 60 and 40", len(whole["period"]), len(one["period"]))
	}
	if !slices.Equal(one["period"], whole["period"][:40]) {
		t.Errorf("the first part's period executions are not the whole run's first 40")
	}
	if len(two["period"]) != 0 || len(two["pct"]) != 60 {
		t.Errorf("the second part ran %d period and %d pct executions, want 0 and 60", len(two["period"]), len(two["pct"]))
	}
	// A part whose other members are exhausted is exhausted, and its claim names the member
	// another part runs.
	_, rep := byMember("ipb:max=0+period", second, 0)
	if rep.Stopped != "exhausted" || !strings.Contains(rep.Exhausted, "period: run by the first part") {
		t.Errorf("the second part of ipb:max=0+period: stopped by %s, claim %q; want exhausted, naming period's part", rep.Stopped, rep.Exhausted)
	}
	_, rep = byMember("ipb:max=0+period", first, 0)
	if !strings.Contains(rep.Exhausted, "period: all") {
		t.Errorf("the first part of ipb:max=0+period: claim %q, want period's", rep.Exhausted)
	}
}
