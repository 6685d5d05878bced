package strategy

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
)

// ladder is a bug that needs many preemptions, each at its place: a writer goroutine sets x
// to 1, 2, …, rungs, and the test body reads x after each of the writer's steps and fails
// only if it saw every value, in order — the two goroutines must alternate exactly, 2·rungs
// decisions in a row. A random walk makes that alternation with probability about 2^-2·rungs
// per execution. Each rung reached is a new pair of operations on x (the writer's i-th write,
// the body's i-th read), so a fuzzer that keeps the executions that reach one rung further
// climbs the ladder.
func ladder(rungs int) func(*engine.T) {
	return func(t *engine.T) {
		var x int
		engine.Go(func() {
			for i := 1; i <= rungs; i++ {
				engine.Write(unsafe.Pointer(&x), fmt.Sprintf("w%d", i))
				x = i
			}
		}, "go")
		for i := 1; i <= rungs; i++ {
			engine.Read(unsafe.Pointer(&x), fmt.Sprintf("r%d", i))
			if x != i {
				return
			}
		}
		t.Fatalf("saw every rung of the ladder")
	}
}

func TestGreyboxClimbsTheLadder(t *testing.T) {
	const rungs, budget = 10, 20_000
	for _, tc := range []struct {
		s    engine.Strategy
		want bool
	}{
		{NewGreybox(1), true},
		{NewRandom(1), false},
		{NewPOS(1), false},
	} {
		rep := engine.Explore(ladder(rungs), engine.Config{Strategy: tc.s, Schedules: budget})
		if (rep.First != nil) != tc.want {
			t.Errorf("%s: bug found %v after %d schedules, want %v", tc.s.Name(), rep.First != nil, rep.Schedules, tc.want)
			continue
		}
		t.Logf("%s: bug %v, %d schedules", tc.s.Name(), rep.First != nil, rep.Schedules)
	}
}

func TestGreyboxSameSeedSameSchedules(t *testing.T) {
	schedules := func(seed uint64) []string {
		var out []string
		engine.Explore(ladder(6), engine.Config{Strategy: NewGreybox(seed), Schedules: 300, KeepGoing: true, Record: true,
			OnExecution: func(_ int, r *engine.Result) {
				var b strings.Builder
				for _, st := range r.Schedule {
					if st.Kind == schedule.Run {
						fmt.Fprintf(&b, "%d", st.G)
					}
				}
				out = append(out, b.String())
			}})
		return out
	}
	a, b, c := schedules(7), schedules(7), schedules(8)
	if !slices.Equal(a, b) {
		t.Fatal("the same seed gave different schedules")
	}
	if slices.Equal(a, c) {
		t.Fatal("different seeds gave the same schedules")
	}
}

// TestGreyboxKeepsOnlyNewCoverage: a program with one goroutine has one schedule; its first
// execution covers the pairs of its operations and joins the corpus, and no later one does.
func TestGreyboxKeepsOnlyNewCoverage(t *testing.T) {
	g := NewGreybox(1)
	body := func(t *engine.T) {
		var x int
		for i := 0; i < 3; i++ {
			engine.Write(unsafe.Pointer(&x), "w")
			x++
		}
	}
	engine.Explore(body, engine.Config{Strategy: g, Schedules: 50})
	if g.Corpus() != 1 || g.Mutants() == 0 {
		t.Errorf("corpus %d, mutants %d: want 1 schedule, mutated", g.Corpus(), g.Mutants())
	}
}

// greyboxSpy checks every mutant against its corpus entry: up to the cut it makes the entry's
// decisions, and at the cut, when another goroutine is enabled, it picks another.
type greyboxSpy struct {
	*Greybox
	enabled  []int // per decision of the current execution, how many goroutines were enabled
	mutants  int
	switched int // mutants whose cut had a choice, and that made another one
	err      error
}

func (s *greyboxSpy) Begin() bool {
	s.enabled = s.enabled[:0]
	return s.Greybox.Begin()
}

func (s *greyboxSpy) Pick(d *engine.Decision) engine.GID {
	s.enabled = append(s.enabled, d.NumEnabled())
	return s.Greybox.Pick(d)
}

func (s *greyboxSpy) End(r *engine.Result) {
	if base := s.base; base != nil && s.err == nil {
		s.mutants++
		got := s.picks
		cut := min(s.cut, len(got), len(base.picks))
		if !slices.Equal(got[:cut], base.picks[:cut]) {
			s.err = fmt.Errorf("mutant with cut %d: decisions %v, its entry's %v", s.cut, got[:cut], base.picks[:cut])
		}
		if cut < len(got) && cut < len(base.picks) && s.enabled[cut] > 1 {
			if got[cut].g == base.picks[cut].g {
				s.err = fmt.Errorf("mutant with cut %d picked %v there, as its entry did", s.cut, got[cut].g)
			}
			s.switched++
		}
	}
	s.Greybox.End(r)
}

func TestGreyboxMutantsFollowTheirEntry(t *testing.T) {
	spy := &greyboxSpy{Greybox: NewGreybox(3)}
	engine.Explore(ladder(8), engine.Config{Strategy: spy, Schedules: 2000, KeepGoing: true})
	if spy.err != nil {
		t.Fatal(spy.err)
	}
	if spy.mutants < 1000 || spy.switched < 500 {
		t.Errorf("%d mutants, %d switched at the cut: want most of 2000 executions", spy.mutants, spy.switched)
	}
}

// TestGreyboxReplaysOnNewPoints: when the scheduling points grow (a race first seen while
// exploring makes its accesses points), the corpus recorded before is still followed: a
// mutant's decisions before its cut are its entry's, with the goroutine that stops at a point
// its entry did not have going on, as it did then. The corpus is built with only
// synchronization as points, then mutated with every access a point.
func TestGreyboxReplaysOnNewPoints(t *testing.T) {
	body := func(t *engine.T) {
		var x int
		var mu sync.Mutex
		var wg sync.WaitGroup
		engine.WGAdd(&wg, 2, "n.go:1")
		for range 2 {
			engine.Go(func() {
				engine.Lock(&mu, "n.go:2")
				engine.Write(unsafe.Pointer(&x), "n.go:3")
				x++
				engine.Write(unsafe.Pointer(&x), "n.go:4")
				x++
				engine.Unlock(&mu, "n.go:5")
				engine.WGDone(&wg, "n.go:6")
			}, "n.go:7")
		}
		engine.Read(unsafe.Pointer(&x), "n.go:8")
		_ = x
		engine.WGWait(&wg, "n.go:9")
	}
	g := NewGreybox(2)
	engine.Explore(body, engine.Config{Strategy: g, Schedules: 200, Points: engine.PointsSync})
	before := len(g.corpus)
	var err error
	mutants := 0
	spy := &endSpy{Strategy: g, end: func(*engine.Result) {
		base := g.base
		if base == nil || err != nil || slices.Index(g.corpus, base) >= before {
			return
		}
		mutants++
		got := g.picks[:min(g.cut, len(g.picks))]
		var followed []greyboxPick
		for i, p := range got {
			if base.points[p.pos] {
				followed = append(followed, p)
				continue
			}
			if i == 0 || got[i-1].g != p.g {
				err = fmt.Errorf("decision %d of a mutant (cut %d): %v at a new point, after %v", i, g.cut, p, got[max(i-1, 0)])
				return
			}
		}
		if !slices.Equal(followed, base.picks[:len(followed)]) {
			err = fmt.Errorf("mutant with cut %d made %v, its entry %v", g.cut, followed, base.picks[:len(followed)])
		}
	}}
	engine.Explore(body, engine.Config{Strategy: spy, Schedules: 1000, Points: engine.PointsAll})
	if err != nil {
		t.Fatal(err)
	}
	if before == 0 || mutants < 20 {
		t.Fatalf("corpus of %d before the points grew, %d mutants of it after: want both", before, mutants)
	}
}

// endSpy calls end before the strategy's End.
type endSpy struct {
	engine.Strategy
	end func(*engine.Result)
}

func (s *endSpy) End(r *engine.Result) {
	s.end(r)
	s.Strategy.End(r)
}

// TestGreyboxCoversAtomicStates: the test body and a goroutine it starts race to
// CompareAndSwap a variable from 0, at the same position; whichever is first leaves its
// value. The two orders make the same pair of operations and differ only in the variable's
// value: only the atomic state tells them apart, and the corpus holds schedules of both.
func TestGreyboxCoversAtomicStates(t *testing.T) {
	body := func(t *engine.T) {
		var v atomic.Int32
		cas := func(i int32) { engine.AtomicInt32CompareAndSwap(&v, 0, i, "c.go:1") }
		engine.Go(func() { cas(1) }, "c.go:2")
		cas(2)
	}
	g := NewGreybox(1)
	engine.Explore(body, engine.Config{Strategy: g, Schedules: 200})
	// The goroutine of each schedule's first CompareAndSwap: G1's is its first operation,
	// executed in the step that starts it, G1's only pick.
	var winners []engine.GID
	for _, e := range g.corpus {
		for _, p := range e.picks {
			if p.g == 1 || p.pos == g.pos["c.go:1"] {
				winners = append(winners, p.g)
				break
			}
		}
	}
	slices.Sort(winners)
	if winners = slices.Compact(winners); !slices.Equal(winners, []engine.GID{0, 1}) {
		t.Errorf("the corpus holds schedules whose first CompareAndSwap is by %v, want one by each goroutine (0 and 1)", winners)
	}
}

// TestGreyboxFocusesOnNewRaces: the executions after one that shows a race first seen are
// all mutants of it, greyboxFocus of them; an execution that shows only races seen before
// changes nothing.
// twoWriters starts two goroutines that increment x with nothing ordering their writes (a race
// in every execution) and waits for both; its operations' positions are in file.
func twoWriters(x *int, file string) {
	var wg sync.WaitGroup
	engine.WGAdd(&wg, 2, file+":1")
	for range 2 {
		engine.Go(func() {
			engine.Write(unsafe.Pointer(x), file+":2")
			*x++
			engine.WGDone(&wg, file+":3")
		}, file+":4")
	}
	engine.WGWait(&wg, file+":5")
}

func TestGreyboxFocusesOnNewRaces(t *testing.T) {
	body := func(t *engine.T) {
		var x, y int
		twoWriters(&x, "r.go")
		engine.Go(func() {
			engine.Write(unsafe.Pointer(&y), "r.go:6")
			y++
		}, "r.go:7")
		engine.Write(unsafe.Pointer(&y), "r.go:8") // races with r.go:6 in some schedules only
		y++
	}
	g := NewGreybox(4)
	var focus *greyboxEntry
	left, focused, execs := 0, 0, 0
	var err error
	engine.Explore(body, engine.Config{Strategy: g, Schedules: 1000, Races: true, Points: engine.PointsRacy,
		OnExecution: func(_ int, r *engine.Result) {
			execs++
			if err != nil {
				return
			}
			if left > 0 {
				if g.base != focus {
					err = fmt.Errorf("execution %d: not a mutant of the schedule that showed a new race, %d executions after it", execs, greyboxFocus-left)
					return
				}
				left--
			}
			if g.focusLeft == greyboxFocus {
				focus, left = g.focus, greyboxFocus
				focused++
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if focused != 2 {
		t.Errorf("%d executions were focused on, want 2 (one per race)", focused)
	}
}

// TestGreyboxStatesAreBounded: a program whose atomic variable holds a value that differs in
// every execution (here from a counter outside the test) shows a new state each time; once
// maxStates were covered, states no longer make an execution join the corpus.
func TestGreyboxStatesAreBounded(t *testing.T) {
	var runs int32
	body := func(t *engine.T) {
		var v atomic.Int32
		runs++
		engine.AtomicInt32Store(&v, runs, "s.go:1")
		engine.AtomicInt32Load(&v, "s.go:2")
	}
	g := NewGreybox(1)
	g.maxStates = 50
	engine.Explore(body, engine.Config{Strategy: g, Schedules: 500})
	if g.states != g.maxStates || g.Corpus() > g.maxStates {
		t.Errorf("%d states covered, corpus of %d: want %d states and at most as many schedules", g.states, g.Corpus(), g.maxStates)
	}
}

// TestGreyboxRacesSeenBeforeDoNotJoin: two goroutines write a variable with nothing ordering
// them, so every execution shows the same race; once its coverage is known, an execution
// joins the corpus only for a race not seen before, and the corpus stays small instead of
// growing by every execution.
func TestGreyboxRacesSeenBeforeDoNotJoin(t *testing.T) {
	body := func(t *engine.T) {
		var x int
		twoWriters(&x, "j.go")
	}
	g := NewGreybox(1)
	raced := 0
	rep := engine.Explore(body, engine.Config{Strategy: g, Schedules: 300, Races: true, Points: engine.PointsSync,
		OnExecution: func(_ int, r *engine.Result) {
			if len(r.Races) > 0 {
				raced++
			}
		}})
	if raced < rep.Schedules/2 || g.Corpus() == 0 || g.Corpus() > 20 {
		t.Errorf("%d of %d executions showed the race, corpus of %d: want most, and a corpus of 1–20", raced, rep.Schedules, g.Corpus())
	}
}

// TestGreyboxChoosesRareEntries: of two corpus entries, the one whose element fewer
// executions covered is the mutants' start unless all greyboxTournament draws miss it; with
// equal counts, the newest is.
func TestGreyboxChoosesRareEntries(t *testing.T) {
	const draws = 1000
	for _, tc := range []struct {
		name    string
		covered [2]uint32 // how many executions covered each entry's element
		want    int       // the entry that should be chosen
		atLeast int       // of draws
	}{
		{"older is rarer", [2]uint32{1, 100}, 0, draws * 98 / 100},
		{"newer is rarer", [2]uint32{100, 1}, 1, draws * 98 / 100},
		{"equal: newest", [2]uint32{7, 7}, 1, draws * 98 / 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGreybox(3)
			g.next()
			for i, n := range tc.covered {
				p := greyboxPair{from: int32(i), to: int32(i)}
				g.cover[p] = n
				g.corpus = append(g.corpus, &greyboxEntry{firsts: []greyboxPair{p}})
			}
			chosen := 0
			for range draws {
				if g.choose(len(g.corpus)) == g.corpus[tc.want] {
					chosen++
				}
			}
			if chosen < tc.atLeast {
				t.Errorf("entry %d chosen %d times of %d, want at least %d", tc.want, chosen, draws, tc.atLeast)
			}
		})
	}
}

// TestGreyboxLearning: greybox is Learning while its executions keep joining the corpus, and
// stops once as many executions as came before the last one that joined (at most
// greyboxLearnWindow) added nothing.
func TestGreyboxLearning(t *testing.T) {
	var runs int32
	tests := []struct {
		name string
		body func(*engine.T)
		// executions, then the Learning wanted after each number of executions listed
		execs int
		want  map[int]bool
	}{
		// One schedule: the first execution joins, the second adds nothing and ends it.
		{"straight line", func(t *engine.T) {
			var x int
			for range 3 {
				engine.Write(unsafe.Pointer(&x), "w")
				x++
			}
		}, 50, map[int]bool{0: false, 1: true, 2: false, 50: false}},
		// A new state in every execution (a counter kept outside the test).
		{"new state each time", func(t *engine.T) {
			var v atomic.Int32
			runs++
			engine.AtomicInt32Store(&v, runs, "s.go:1")
			engine.AtomicInt32Load(&v, "s.go:2")
		}, 300, map[int]bool{1: true, 300: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGreybox(1)
			if want, ok := tc.want[0]; ok && g.Learning() != want {
				t.Errorf("before the first execution: Learning %v, want %v", !want, want)
			}
			n := 0
			engine.Explore(tc.body, engine.Config{Strategy: g, Schedules: tc.execs, OnExecution: func(int, *engine.Result) {
				n++
				if want, ok := tc.want[n]; ok && g.Learning() != want {
					t.Errorf("after %d executions (corpus of %d): Learning %v, want %v", n, g.Corpus(), !want, want)
				}
			}})
		})
	}
}

// TestGreyboxStopsLearningAfterTheWindow: with executions that joined the corpus long ago,
// greyboxLearnWindow executions that add nothing end Learning.
func TestGreyboxStopsLearningAfterTheWindow(t *testing.T) {
	g := NewGreybox(1)
	g.ended, g.lastNew = 5000, 5000
	for i := 1; i <= greyboxLearnWindow; i++ {
		g.ended++
		if got, want := g.Learning(), i < greyboxLearnWindow; got != want {
			t.Fatalf("%d executions after the last new one: Learning %v, want %v", i, got, want)
		}
	}
}

// TestGreyboxObservesThePortfolio: in a portfolio, greybox learns from the other members'
// executions — one that covers something new joins its corpus with that member's decisions,
// and greybox's mutants of such an entry follow it up to their cut — but not from an execution
// longer than greyboxObserveMax decisions.
func TestGreyboxObservesThePortfolio(t *testing.T) {
	g := NewGreybox(1)
	p, err := NewPortfolio(NewRandom(1), g)
	if err != nil {
		t.Fatal(err)
	}
	var decisions []greyboxPick
	engine.Explore(ladder(4), engine.Config{Strategy: p, Schedules: 1, Record: true,
		OnExecution: func(_ int, r *engine.Result) {
			for _, st := range r.Schedule {
				if st.Kind == schedule.Run {
					decisions = append(decisions, greyboxPick{g: engine.GID(st.G)})
				}
			}
		}})
	if g.Corpus() != 1 {
		t.Fatalf("after one execution of the random member, greybox's corpus has %d entries, want 1", g.Corpus())
	}
	got := g.corpus[0].picks
	if len(got) != len(decisions) {
		t.Fatalf("the observed entry has %d decisions, the execution made %d", len(got), len(decisions))
	}
	for i, d := range decisions {
		if got[i].g != d.g {
			t.Fatalf("decision %d of the observed entry picked %d, the execution %d", i, got[i].g, d.g)
		}
	}

	// The entry keeps the member's data choices: which ready case a select took.
	g = NewGreybox(4)
	if p, err = NewPortfolio(NewRandom(4), g); err != nil {
		t.Fatal(err)
	}
	var took int
	engine.Explore(func(*engine.T) {
		a, b := engine.MakeChan[int](1, "c.go:1"), engine.MakeChan[int](1, "c.go:2")
		engine.Send(a, 1, "c.go:3")
		engine.Send(b, 2, "c.go:4")
		took = engine.Select("c.go:5", false, engine.RecvCase(a), engine.RecvCase(b))
	}, engine.Config{Strategy: p, Schedules: 1})
	if g.Corpus() != 1 || !slices.Equal(g.corpus[0].choices, []int{took}) {
		t.Fatalf("the observed execution's select took case %d; greybox's corpus: %d entries, the first with choices %v", took, g.Corpus(), g.corpus[0].choices)
	}

	// Greybox's mutants of the entries it observed follow them up to their cut.
	spy := &greyboxSpy{Greybox: NewGreybox(2)}
	if p, err = NewPortfolio(NewRandom(2), spy); err != nil {
		t.Fatal(err)
	}
	engine.Explore(ladder(6), engine.Config{Strategy: p, Schedules: 400, KeepGoing: true})
	if spy.err != nil || spy.mutants < 100 {
		t.Fatalf("mutants %d (want at least 100), error %v", spy.mutants, spy.err)
	}

	// An execution too long to observe does not join.
	g = NewGreybox(3)
	if p, err = NewPortfolio(NewRandom(3), g); err != nil {
		t.Fatal(err)
	}
	long := func(*engine.T) {
		var x int
		engine.Go(func() {
			engine.Write(unsafe.Pointer(&x), "l.go:1")
			x++
		}, "l.go:2")
		for i := 0; i < greyboxObserveMax; i++ {
			engine.Write(unsafe.Pointer(&x), "l.go:3")
			x++
		}
	}
	engine.Explore(long, engine.Config{Strategy: p, Schedules: 1})
	if g.Corpus() != 0 {
		t.Errorf("an execution of over %d decisions joined the corpus of the greybox that observed it", greyboxObserveMax)
	}
}

// flagSpinners is the atomics pattern of a stress test: goroutines that spin on an atomic flag,
// writing a shared variable in the loop, while a slow goroutine sets the flag after some
// steps of its own. The spinners run long enough that the fairness rule makes the slow
// goroutine the only choice at some decisions (engine/fair.go).
func flagSpinners(t *engine.T) {
	var flag int32
	var x int
	for range 2 {
		engine.Go(func() {
			for engine.AtomicLoadInt32(&flag, "s.go:1") == 0 {
				engine.Write(unsafe.Pointer(&x), "s.go:2")
				x++
			}
		}, "s.go:3")
	}
	var n int32
	for range 20 {
		engine.AtomicAddInt32(&n, 1, "s.go:4")
	}
	engine.AtomicStoreInt32(&flag, 1, "s.go:5")
}

// TestGreyboxKeepsTheFairnessRule: a mutant that replays its corpus entry over scheduling
// points the entry did not have lets the goroutine that stopped at one go on, as it did then —
// unless the fairness rule offers only a starved goroutine at that decision: then the goroutine
// that stopped is not enabled, and picking it aborted the execution ("strategy greybox picked
// G2, which is not enabled (enabled: [G1])", as greybox did in a portfolio on an atomic-heavy
// stress test at step 4032, the fairness rule's first check after 4 × 1000 steps).
func TestGreyboxKeepsTheFairnessRule(t *testing.T) {
	g := NewGreybox(1)
	rep := engine.Explore(flagSpinners, engine.Config{Strategy: g, Schedules: 200, Points: engine.PointsSync, FairSteps: 4})
	if rep.Err != nil {
		t.Fatalf("with sync points: %v", rep.Err)
	}
	if len(g.corpus) == 0 {
		t.Fatal("no corpus before the points grew")
	}
	rep = engine.Explore(flagSpinners, engine.Config{Strategy: g, Schedules: 1000, Points: engine.PointsAll, FairSteps: 4})
	if rep.Err != nil {
		t.Fatalf("with every access a point: %v", rep.Err)
	}
}
