package stress

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestSelectTestsFollowsP checks §4.3.1's selection against the weighted distribution: with
// N = 1 each test is drawn with probability P_i; with N = 2 the pair is distinct and test i
// is in it with probability P_i + Σ_{j≠i} P_j·P_i/(1−P_j) (drawn first, or second after j).
func TestSelectTestsFollowsP(t *testing.T) {
	p := []float64{0.5, 0.3, 0.15, 0.05}
	const draws = 100000
	for _, n := range []int{1, 2} {
		r := rand.New(rand.NewPCG(1, uint64(n)))
		count := make([]int, len(p))
		for range draws {
			got := selectTests(r, p, n)
			if len(got) != n {
				t.Fatalf("N=%d: selected %v", n, got)
			}
			seen := map[int]bool{}
			for _, i := range got {
				if seen[i] {
					t.Fatalf("N=%d: test %d selected twice: %v", n, i, got)
				}
				seen[i] = true
				count[i]++
			}
		}
		for i := range p {
			want := p[i]
			if n == 2 {
				for j := range p {
					if j != i {
						want += p[j] * p[i] / (1 - p[j])
					}
				}
			}
			got := float64(count[i]) / draws
			se := math.Sqrt(want * (1 - want) / draws)
			if math.Abs(got-want) > 5*se {
				t.Errorf("N=%d: test %d selected with frequency %.4f, want %.4f ± %.4f", n, i, got, want, 5*se)
			}
		}
	}
}

// TestSchedulerWeightsAndCounts checks P_i ∝ 1/AverageTestDuration_i (of a turn) and C_i =
// max_j(avg_j)/avg_i (of a run).
func TestSchedulerWeightsAndCounts(t *testing.T) {
	s := newScheduler(3)
	for i, d := range []time.Duration{time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond} {
		s.ran(i, d)
		s.ran(i, d)
		s.turned(i, 2*d)
	}
	if got, want := s.counts(), []int{100, 10, 1}; !slices.Equal(got, want) {
		t.Errorf("counts = %v, want %v", got, want)
	}
	w := s.weights()
	inv := []float64{1, 0.1, 0.01}
	for i := range w {
		if want := inv[i] / 1.11; math.Abs(w[i]-want) > 1e-9 {
			t.Errorf("P_%d = %.6f, want %.6f", i, w[i], want)
		}
	}
	// A test not yet run weighs as much as the most likely one and runs once.
	s = newScheduler(2)
	s.ran(0, time.Millisecond)
	s.turned(0, time.Millisecond)
	if w := s.weights(); w[0] != w[1] {
		t.Errorf("weights with an unrun test = %v, want equal", w)
	}
	if c := s.counts(); c[1] != 1 {
		t.Errorf("count of an unrun test = %d, want 1", c[1])
	}
}

// TestCombinerConverges runs the scheduler on tests whose runs last 1 ms, 10 ms, 100 ms and
// 1 s (simulated: each round lasts as long as its longest turn) and checks the seed's goal:
// the standard deviation of the total time per test stays low relative to its mean, and
// falls as rounds accumulate.
func TestCombinerConverges(t *testing.T) {
	durations := []time.Duration{time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond, time.Second}
	for _, n := range []int{1, 2, 3} {
		s := newScheduler(len(durations))
		r := rand.New(rand.NewPCG(7, uint64(n)))
		spreadAt := map[int]float64{}
		for round := 1; round <= 4000; round++ {
			tests, runs := s.plan(r, n)
			for k, i := range tests {
				for range runs[k] {
					s.ran(i, durations[i])
				}
				s.turned(i, time.Duration(runs[k])*durations[i])
			}
			if round == 400 || round == 4000 {
				spreadAt[round] = s.spread()
			}
		}
		if spreadAt[4000] > 0.05 {
			t.Errorf("N=%d: total time per test varies by %.1f%% after 4000 rounds, want ≤ 5%%", n, 100*spreadAt[4000])
		}
		if spreadAt[4000] >= spreadAt[400] {
			t.Errorf("N=%d: spread did not fall: %.3f after 400 rounds, %.3f after 4000", n, spreadAt[400], spreadAt[4000])
		}
		t.Logf("N=%d: spread %.2f%% after 400 rounds, %.2f%% after 4000", n, 100*spreadAt[400], 100*spreadAt[4000])
	}
}
