package strategy

import (
	"slices"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
)

// scriptedLearner is a random walk that reports itself Learning for its first n executions.
type scriptedLearner struct {
	*Random
	n, ended int
}

func (s *scriptedLearner) End(r *engine.Result) { s.ended++; s.Random.End(r) }
func (s *scriptedLearner) Learning() bool       { return s.ended < s.n }
func (s *scriptedLearner) Name() string         { return "learner" }

// TestPortfolioLearnerTurns: a member that is learning takes one more execution at each turn
// for every learnerRamp executions it has run, up to learnerTurns, cut short as soon as it
// stops learning; after that it takes one execution a turn, as the others do.
func TestPortfolioLearnerTurns(t *testing.T) {
	const learns = learnerRamp*learnerTurns + 500 // executions while learning
	learner := &scriptedLearner{Random: NewRandom(2), n: learns}
	p, err := NewPortfolio(NewRandom(1), learner)
	if err != nil {
		t.Fatal(err)
	}
	body := func(t *engine.T) {
		var x int
		engine.Go(func() { engine.Write(unsafe.Pointer(&x), "l.go:1") }, "l.go:2")
		engine.Read(unsafe.Pointer(&x), "l.go:3")
	}
	var got []string
	engine.Explore(body, engine.Config{Strategy: p, KeepGoing: true, Schedules: learns * 2,
		OnExecution: func(int, *engine.Result) { got = append(got, p.Params()["member"]) }})

	// The learner's turns, in order, and the random member's in between (always one).
	var turns []int
	for i := 0; i < len(got); {
		j := i
		for j < len(got) && got[j] == got[i] {
			j++
		}
		if got[i] == "learner" {
			turns = append(turns, j-i)
		} else if j-i != 1 {
			t.Fatalf("execution %d: the random member ran %d executions in a row, want 1", i+1, j-i)
		}
		i = j
	}
	// Expected: at each turn, executions while the learner, having begun execs of its own,
	// is learning and the turn is shorter than 1 + execs/learnerRamp (at most learnerTurns).
	execs := 0
	var want []int
	for execs < learner.ended {
		n := 0
		for {
			execs++
			n++
			if execs >= learns || n >= min(learnerTurns, 1+execs/learnerRamp) || execs == learner.ended {
				break
			}
		}
		want = append(want, n)
	}
	if !slices.Equal(turns, want) {
		t.Fatalf("the learner's turns\n got %v\nwant %v", turns, want)
	}
	for _, check := range []struct {
		name string
		turn int
		want int
	}{
		{"first turn", 0, 1},
		{"turn 99 (its 99th execution)", 98, 1},
		{"longest", slices.Index(turns, slices.Max(turns)), learnerTurns},
		{"last", len(turns) - 1, 1},
	} {
		if turns[check.turn] != check.want {
			t.Errorf("%s: %d executions, want %d", check.name, turns[check.turn], check.want)
		}
	}
}
