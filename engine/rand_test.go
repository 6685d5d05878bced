package engine_test

import (
	"fmt"
	randv1 "math/rand"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
)

// draws draws one value of every function of math/rand and math/rand/v2 through the engine.
func draws() string {
	var out []any
	out = append(out, engine.RandInt("r.go:1"), engine.RandInt31("r.go:1"), engine.RandInt31n(1000, "r.go:1"),
		engine.RandInt63("r.go:1"), engine.RandInt63n(1e12, "r.go:1"), engine.RandIntn(1000, "r.go:1"),
		engine.RandUint32("r.go:1"), engine.RandUint64("r.go:1"), engine.RandFloat32("r.go:1"),
		engine.RandFloat64("r.go:1"), engine.RandExpFloat64("r.go:1"), engine.RandNormFloat64("r.go:1"),
		engine.RandPerm(5, "r.go:1"))
	s := []int{1, 2, 3, 4, 5}
	engine.RandShuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] }, "r.go:1")
	b := make([]byte, 6)
	n, err := engine.RandRead(b, "r.go:1")
	out = append(out, s, b, n, err)
	out = append(out, engine.RandV2Int("r.go:2"), engine.RandV2Int32("r.go:2"), engine.RandV2Int32N(1000, "r.go:2"),
		engine.RandV2Int64("r.go:2"), engine.RandV2Int64N(1e12, "r.go:2"), engine.RandV2IntN(1000, "r.go:2"),
		engine.RandV2Uint("r.go:2"), engine.RandV2Uint32("r.go:2"), engine.RandV2Uint32N(1000, "r.go:2"),
		engine.RandV2Uint64("r.go:2"), engine.RandV2Uint64N(1e12, "r.go:2"), engine.RandV2UintN(1000, "r.go:2"),
		engine.RandV2N(time.Second, "r.go:2"), engine.RandV2N(int8(100), "r.go:2"),
		engine.RandV2Float32("r.go:2"), engine.RandV2Float64("r.go:2"), engine.RandV2ExpFloat64("r.go:2"),
		engine.RandV2NormFloat64("r.go:2"), engine.RandV2Perm(5, "r.go:2"))
	engine.RandV2Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] }, "r.go:2")
	out = append(out, s)
	return fmt.Sprint(out...)
}

// TestRandSameInEveryExecution: every execution draws the same values, whatever its
// schedule; two goroutines that draw get, between them, the same values in every execution
// (which one gets which depends on the schedule).
func TestRandSameInEveryExecution(t *testing.T) {
	var seqs []string
	var shared [][]int64
	rep := spExplore(t, func(et *engine.T) {
		seqs = append(seqs, draws())
		c := make(chan int64, 6)
		for range 2 {
			engine.Go(func() {
				for range 3 {
					engine.Send(c, engine.RandInt63n(1<<40, "r.go:3"), "r.go:4")
				}
			}, "r.go:5")
		}
		var got []int64
		for range 6 {
			got = append(got, engine.Recv(c, "r.go:6"))
		}
		slices.Sort(got)
		shared = append(shared, got)
		seqs[len(seqs)-1] += fmt.Sprint(draws())
	}, randomStrategy(7), 20)
	spNoBug(t, rep)
	if len(seqs) != 20 {
		t.Fatalf("%d executions", len(seqs))
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[0] {
			t.Fatalf("execution %d drew\n%s\nexecution 1 drew\n%s", i+1, seqs[i], seqs[0])
		}
		if !slices.Equal(shared[i], shared[0]) {
			t.Fatalf("the goroutines of execution %d drew %v, of execution 1 %v", i+1, shared[i], shared[0])
		}
	}
	if rep.Interleavings < 2 {
		t.Errorf("only %d interleavings", rep.Interleavings)
	}
}

// TestRandSeed: rand.Seed reseeds the execution's source: the same seed draws the same
// values in every execution, another seed others; the next execution starts from the fixed
// seed again.
func TestRandSeed(t *testing.T) {
	var got []string
	seeds := []int64{7, 7, 8, 0}
	i := 0
	spNoBug(t, spExplore(t, func(et *engine.T) {
		if seeds[i] != 0 {
			engine.RandSeed(seeds[i], "s.go:1")
		}
		i++
		got = append(got, fmt.Sprint(engine.RandInt63("s.go:2"), engine.RandIntn(1e6, "s.go:2"), engine.RandV2Int64("s.go:2")))
	}, firstEnabled(), len(seeds)))
	if got[0] != got[1] {
		t.Errorf("seed 7 drew %s, then %s", got[0], got[1])
	}
	if got[0] == got[2] || got[0] == got[3] {
		t.Errorf("seeds 7, 8 and none drew %s, %s, %s", got[0], got[2], got[3])
	}
	var unseeded string
	spNoBug(t, spExplore(t, func(et *engine.T) {
		unseeded = fmt.Sprint(engine.RandInt63("s.go:2"), engine.RandIntn(1e6, "s.go:2"), engine.RandV2Int64("s.go:2"))
	}, firstEnabled(), 1))
	if unseeded != got[3] {
		t.Errorf("an execution after a seeded one drew %s, a fresh one %s", got[3], unseeded)
	}
}

// panicOf returns how f panicked: its value, and whether it is a runtime error.
func panicOf(f func()) (msg string) {
	defer func() {
		v := recover()
		_, rt := v.(runtime.Error)
		msg = fmt.Sprintf("%v (runtime error %v)", v, rt)
	}()
	f()
	return "no panic"
}

// randPanics are calls with bad arguments, through the engine and the real packages.
var randPanics = []struct {
	name           string
	engine, native func()
}{
	{"Intn(0)", func() { engine.RandIntn(0, "p.go:1") }, func() { randv1.Intn(0) }},
	{"Int31n(-1)", func() { engine.RandInt31n(-1, "p.go:1") }, func() { randv1.Int31n(-1) }},
	{"Int63n(0)", func() { engine.RandInt63n(0, "p.go:1") }, func() { randv1.Int63n(0) }},
	{"Perm(-1)", func() { engine.RandPerm(-1, "p.go:1") }, func() { randv1.Perm(-1) }},
	{"Shuffle(-1)", func() { engine.RandShuffle(-1, func(i, j int) {}, "p.go:1") }, func() { randv1.Shuffle(-1, func(i, j int) {}) }},
	{"v2 IntN(0)", func() { engine.RandV2IntN(0, "p.go:1") }, func() { rand.IntN(0) }},
	{"v2 Int32N(-5)", func() { engine.RandV2Int32N(-5, "p.go:1") }, func() { rand.Int32N(-5) }},
	{"v2 Int64N(0)", func() { engine.RandV2Int64N(0, "p.go:1") }, func() { rand.Int64N(0) }},
	{"v2 Uint32N(0)", func() { engine.RandV2Uint32N(0, "p.go:1") }, func() { rand.Uint32N(0) }},
	{"v2 Uint64N(0)", func() { engine.RandV2Uint64N(0, "p.go:1") }, func() { rand.Uint64N(0) }},
	{"v2 UintN(0)", func() { engine.RandV2UintN(0, "p.go:1") }, func() { rand.UintN(0) }},
	{"v2 N(0s)", func() { engine.RandV2N(time.Duration(0), "p.go:1") }, func() { rand.N(time.Duration(0)) }},
	{"v2 N(int8(-1))", func() { engine.RandV2N(int8(-1), "p.go:1") }, func() { rand.N(int8(-1)) }},
	{"v2 Perm(-1)", func() { engine.RandV2Perm(-1, "p.go:1") }, func() { rand.Perm(-1) }},
	{"v2 Shuffle(-1)", func() { engine.RandV2Shuffle(-1, func(i, j int) {}, "p.go:1") }, func() { rand.Shuffle(-1, func(i, j int) {}) }},
}

// TestRandPanics: bad arguments panic as the packages' functions do, in an execution and
// outside one.
func TestRandPanics(t *testing.T) {
	inside := map[string]string{}
	spNoBug(t, spExplore(t, func(et *engine.T) {
		for _, c := range randPanics {
			inside[c.name] = panicOf(c.engine)
		}
	}, firstEnabled(), 1))
	for _, c := range randPanics {
		want := panicOf(c.native)
		if want == "no panic" {
			t.Fatalf("%s: the real function does not panic", c.name)
		}
		if got := inside[c.name]; got != want {
			t.Errorf("%s in an execution: %s, want %s", c.name, got, want)
		}
		if got := panicOf(c.engine); got != want {
			t.Errorf("%s outside an execution: %s, want %s", c.name, got, want)
		}
	}
}

// TestRandRanges: the values are in the functions' ranges, in an execution and outside one.
func TestRandRanges(t *testing.T) {
	check := func(where string) {
		for range 200 {
			if v := engine.RandIntn(10, "g.go:1"); v < 0 || v >= 10 {
				t.Fatalf("%s: Intn(10) = %d", where, v)
			}
			if v := engine.RandV2N(3*time.Millisecond, "g.go:1"); v < 0 || v >= 3*time.Millisecond {
				t.Fatalf("%s: N(3ms) = %v", where, v)
			}
			if v := engine.RandFloat64("g.go:1"); v < 0 || v >= 1 {
				t.Fatalf("%s: Float64() = %v", where, v)
			}
			if v := engine.RandV2Float32("g.go:1"); v < 0 || v >= 1 {
				t.Fatalf("%s: v2 Float32() = %v", where, v)
			}
			p := engine.RandPerm(6, "g.go:1")
			slices.Sort(p)
			if !slices.Equal(p, []int{0, 1, 2, 3, 4, 5}) {
				t.Fatalf("%s: Perm(6) sorted = %v", where, p)
			}
		}
	}
	check("outside")
	spNoBug(t, spExplore(t, func(et *engine.T) { check("inside") }, firstEnabled(), 1))
}
