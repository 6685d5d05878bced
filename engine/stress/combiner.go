package stress

import (
	"math"
	"math/rand/v2"
	"time"
)

// The melting pot's fair scheduler, §4.3.1 of Gunal & Patil (seed 002): each round it
// selects N distinct tests from a weighted distribution whose probabilities are inversely
// proportional to the tests' average durations,
//
//	P_i = (1/AverageTestDuration_i) / Σ_j (1/AverageTestDuration_j),
//
// runs each selected test C_i = max_j(AverageTestDuration_j) / AverageTestDuration_i times on
// its own goroutine, updates the statistics and starts over, so that "regardless of a test
// being short running or long running, the standard deviation of the total execution time of
// each test remains low".
//
// The seed names one statistic, AverageTestDuration, for both formulas. Read as the average
// duration of one run of the test's body in both, the two corrections compound: a selection
// of test i then lasts C_i·avg_i = max for every test, and a test is selected with P_i ∝
// 1/avg_i, so total times end up proportional to 1/avg_i — with tests of 1, 10 and 100 ms
// and N = 1, shares of 90 %, 9 % and 0.9 %, the opposite of the stated goal. So the
// scheduler keeps the two averages the algorithm's two steps measure: C_i comes from the
// average duration of one run of the body (how many runs of test i fill the longest test's
// run), and P_i from the average duration of the test's turn in the pot (its C_i runs).
// Before the pot knows the runs' durations a turn is one run, so the first rounds favour
// short tests as P_i says; once turns last C_i runs they all last about max_j(avg_j) and
// P_i tends to uniform, each selection adding the same time to its test: total times
// converge, their standard deviation relative to their mean falling as rounds accumulate
// (TestCombinerConverges measures it).

// testStats are the pot's statistics of one test.
type testStats struct {
	runs     int64         // runs of the body
	runTime  time.Duration // their total duration
	turns    int64         // turns in the pot (selections)
	turnTime time.Duration // the total duration of those turns
}

// avgRun is AverageTestDuration as C_i uses it; 0 when the test has not run.
func (s *testStats) avgRun() time.Duration {
	if s.runs == 0 {
		return 0
	}
	return s.runTime / time.Duration(s.runs)
}

// avgTurn is AverageTestDuration as P_i uses it; 0 when the test has not run.
func (s *testStats) avgTurn() time.Duration {
	if s.turns == 0 {
		return s.avgRun()
	}
	return s.turnTime / time.Duration(s.turns)
}

// scheduler is the fair scheduler of a pot of tests.
type scheduler struct {
	stats []testStats
}

func newScheduler(n int) *scheduler { return &scheduler{stats: make([]testStats, n)} }

// weights returns the P_i of the current statistics (a test not yet run weighs as much as the
// most likely test, so that it is tried early).
func (s *scheduler) weights() []float64 {
	w := make([]float64, len(s.stats))
	var max, sum float64
	for i := range s.stats {
		if d := s.stats[i].avgTurn(); d > 0 {
			w[i] = 1 / float64(d)
			max = math.Max(max, w[i])
		}
	}
	if max == 0 {
		max = 1
	}
	for i := range w {
		if w[i] == 0 {
			w[i] = max
		}
		sum += w[i]
	}
	for i := range w {
		w[i] /= sum
	}
	return w
}

// counts returns the C_i of every test: how many runs of it fill the longest average run
// (at least 1; 1 for a test not yet run).
func (s *scheduler) counts() []int {
	var max time.Duration
	for i := range s.stats {
		if d := s.stats[i].avgRun(); d > max {
			max = d
		}
	}
	c := make([]int, len(s.stats))
	for i := range s.stats {
		c[i] = 1
		if d := s.stats[i].avgRun(); d > 0 && max > 0 {
			c[i] = max1(int(math.Round(float64(max) / float64(d))))
		}
	}
	return c
}

func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

// selectTests draws n distinct tests from the weighted distribution P (§4.3.1: "generate N
// unique numbers from the WD"): a draw that repeats a test already chosen is drawn again,
// which is drawing from P conditioned on the tests not yet chosen. It returns their indices
// in the order drawn; n is capped at the number of tests.
func selectTests(r *rand.Rand, p []float64, n int) []int {
	n = min(n, len(p))
	chosen := make([]int, 0, n)
	taken := make([]bool, len(p))
	left := 1.0
	for len(chosen) < n {
		// Draw from P restricted to the tests not taken: u in [0, left).
		u := r.Float64() * left
		i := 0
		for ; i < len(p)-1; i++ {
			if taken[i] {
				continue
			}
			if u < p[i] {
				break
			}
			u -= p[i]
		}
		for taken[i] { // rounding left u past the last free test: take the last free one
			i--
		}
		taken[i] = true
		left -= p[i]
		chosen = append(chosen, i)
	}
	return chosen
}

// plan returns the tests of the next round and how many runs each gets.
func (s *scheduler) plan(r *rand.Rand, n int) (tests, runs []int) {
	tests = selectTests(r, s.weights(), n)
	c := s.counts()
	runs = make([]int, len(tests))
	for k, i := range tests {
		runs[k] = c[i]
	}
	return tests, runs
}

// ran records that test i ran its body once for d.
func (s *scheduler) ran(i int, d time.Duration) {
	s.stats[i].runs++
	s.stats[i].runTime += d
}

// turned records that test i's turn in the pot lasted d.
func (s *scheduler) turned(i int, d time.Duration) {
	s.stats[i].turns++
	s.stats[i].turnTime += d
}

// spread is the standard deviation of the tests' total run times relative to their mean
// (the coefficient of variation: 0 when every test ran equally long).
func (s *scheduler) spread() float64 {
	var sum, sq float64
	for i := range s.stats {
		t := float64(s.stats[i].runTime)
		sum += t
		sq += t * t
	}
	n := float64(len(s.stats))
	if n == 0 || sum == 0 {
		return 0
	}
	mean := sum / n
	return math.Sqrt(math.Max(0, sq/n-mean*mean)) / mean
}
