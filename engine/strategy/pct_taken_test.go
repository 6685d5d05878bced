package strategy

import (
	"fmt"
	"testing"

	"github.com/interleave-dev/interleave/engine"
)

// pctTakenSpy checks, after every decision of PCT, that its set of the priorities given
// (kept once a goroutine is created beyond the estimate n) holds exactly the priorities of
// the execution's goroutines, through change points and yields: the set replaces a look
// through all of them, and must answer as that look would.
type pctTakenSpy struct {
	*PCT
	err      error
	beyond   int // decisions checked with the set kept
	distinct int
}

func (s *pctTakenSpy) Pick(d *engine.Decision) engine.GID {
	g := s.PCT.Pick(d)
	values := map[int64]bool{}
	for _, v := range s.prio {
		values[v] = true
	}
	if len(values) != len(s.prio) && s.err == nil {
		s.err = fmt.Errorf("step %d: priorities %v are not distinct", d.Step, s.prio)
	}
	if !s.takenOK {
		return g
	}
	s.beyond++
	if len(s.taken) != len(values) && s.err == nil {
		s.err = fmt.Errorf("step %d: the set has %d values, the goroutines %d", d.Step, len(s.taken), len(values))
	}
	for v := range values {
		if _, ok := s.taken[v]; !ok && s.err == nil {
			s.err = fmt.Errorf("step %d: priority %d is not in the set", d.Step, v)
		}
	}
	return g
}

// TestPCTPrioritiesBeyondN runs PCT with an estimate of 2 goroutines on a program of 9, with
// busy-waiting goroutines (yields lower priorities) and depth 3 (change points lower them),
// and checks the set of priorities given at every decision.
func TestPCTPrioritiesBeyondN(t *testing.T) {
	p, err := NewPCT(PCTConfig{D: 3, N: 2, K: 40, Learn: -1, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	s := &pctTakenSpy{PCT: p}
	exploreN(t, spinners(4, 4), s, 300)
	if s.err != nil {
		t.Fatal(s.err)
	}
	t.Logf("%d decisions checked with the set kept", s.beyond)
	if s.beyond == 0 {
		t.Fatal("no goroutine was created beyond n")
	}
}
