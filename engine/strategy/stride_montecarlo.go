package strategy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
)

// The length-based maximum stride of seed 000 (Abdelrasoul, "Promoting secondary orders of
// event pairs in randomized scheduling using a randomized stride"), §IV.
//
// For two threads A and B, the least likely ordering edge leaving A is a_L → b_1: A runs
// all its L events before B's first one. Under randomized stride scheduling each selection
// picks A or B with probability 1/2 (§III-D: threads other than A and B do not change the
// order of A's and B's events, so the analysis reduces to two threads), and a selected A runs
// a stride of s ~ U_d(1, smax) events. a_L → b_1 happens exactly when the first i selections
// all pick A (probability 0.5^i) and A's i-th stride is the one that reaches its L-th event.
// The paper's equation sums this over i; replacing U_d(1, smax) by the continuous uniform
// distribution, dividing by smax and dropping the ε/smax term (which the paper shows only
// raises the probability), it becomes
//
//	P(a_L → b_1) ≈ Σ_{i≥1} 0.5^i · P(U_1 + … + U_{i−1} < L/smax ≤ U_1 + … + U_i),  U_j ~ U_c(0, 1),
//
// a function f of the ratio r = L/smax alone: "given a desired probability, the
// approximation makes the ratio of the length of the thread to the ideal maximum stride, i.e.
// L/smax, constant for all threads in the program under test". The paper estimates the
// relation between r and P(a_L → b_1) by Monte Carlo sampling (its Fig. of P(a_L → b_1)
// against L/smax), and so does StrideRatio: it samples the paths U_1, U_2, … with a fixed
// seed, estimates f(r) from them (the inner probabilities P(N(r) = i) of the sum, where N(r)
// is the first i whose partial sum reaches r, weighted exactly by 0.5^i; see strideCover),
// and solves f(r) = p by bisection. Every path draws the same numbers for every r, so the
// estimate is a smooth decreasing function of r up to sampling noise of order 10⁻³ of f; the
// fixed seed makes the ratio, and so every smax, the same on every machine and in every run.
// The stride tests check it against an exact solution of the same equation (a renewal
// equation) to within 0.5%.

// Parameters of the Monte Carlo estimate of StrideRatio.
const (
	strideMCPaths = 100_000               // sampled paths
	strideMCSeed  = 0x000c_19de_1ce5_fffc // fixed seed (seed 000's identifier)
	strideMCTol   = 1e-6                  // bisection stops when the interval is this narrow
	strideMCMaxR  = 64.0                  // f(64) ≈ 1e-35: no useful target is smaller
	strideMCTopP  = 0.5                   // f(0+) = 1/2: A's first stride, then B
)

var strideRatios struct {
	sync.Mutex
	m map[float64]float64
}

// strideRatiosKnown are StrideRatio's estimates for the target probabilities of §V-A's
// experiment, p1 and p2 (StrideTargetProbability(0.99, 9900, 1) and (…, 2)), which the bench's
// stride columns and the default portfolio's stride member use. The estimate takes about
// 100 ms, which every test process with the default strategy would otherwise pay at start;
// these are its results, bit for bit (TestStrideRatiosKnown estimates them again), so the
// strategy is the same whether it looks them up or estimates them.
var strideRatiosKnown = map[float64]float64{
	0.00046506053146673466: 5.774960994720459,  // p1
	0.021565262146951394:   2.7217001914978027, // p2
}

// StrideRatio returns r = L/smax, the ratio of a goroutine's length to its maximum stride
// for which the least likely ordering edge a_L → b_1 (seed 000, §IV) is covered with
// probability p in one execution, by the paper's Monte Carlo estimate (see above). p must be
// in (0, 0.5): with r → 0 the probability tends to 1/2, the chance that A is selected first.
// The result is cached per p.
func StrideRatio(p float64) (float64, error) {
	if r, ok := strideRatiosKnown[p]; ok {
		return r, nil
	}
	return estimateStrideRatio(p)
}

// estimateStrideRatio is StrideRatio's Monte Carlo estimate.
func estimateStrideRatio(p float64) (float64, error) {
	if !(p > 0 && p < strideMCTopP) {
		return 0, fmt.Errorf("stride: target probability p must be in (0, 0.5), got %v", p)
	}
	strideRatios.Lock()
	defer strideRatios.Unlock()
	if r, ok := strideRatios.m[p]; ok {
		return r, nil
	}
	lo, hi := 0.0, 1.0
	for strideCover(hi) > p {
		lo, hi = hi, 2*hi
		if hi > strideMCMaxR {
			return 0, fmt.Errorf("stride: target probability p = %v is too small (L/smax would exceed %v)", p, strideMCMaxR)
		}
	}
	for hi-lo > strideMCTol {
		mid := (lo + hi) / 2
		if strideCover(mid) > p {
			lo = mid
		} else {
			hi = mid
		}
	}
	r := (lo + hi) / 2
	if strideRatios.m == nil {
		strideRatios.m = make(map[float64]float64)
	}
	strideRatios.m[p] = r
	return r, nil
}

// strideCover is the Monte Carlo estimate of f(r) = Σ_i 0.5^i · P(N(r) = i), the
// probability of a_L → b_1 for L/smax = r. Path k is drawn from its own generator, seeded
// with (strideMCSeed, k), so that it is the same path for every r. The last stride is not
// sampled but integrated (conditional Monte Carlo): given S_{i−1} = U_1 + … + U_{i−1} < r,
// the i-th stride reaches r with probability P(U_i ≥ r − S_{i−1}) = max(0, 1 − (r − S_{i−1})),
// so a path contributes Σ_i 0.5^i · max(0, 1 − r + S_{i−1}) over its i with S_{i−1} < r.
// That is the same expectation with a smaller variance than counting 0.5^N(r) alone.
func strideCover(r float64) float64 {
	pcg := rand.NewPCG(0, 0)
	rng := rand.New(pcg)
	sum := 0.0
	for k := range uint64(strideMCPaths) {
		pcg.Seed(strideMCSeed, k)
		w, s := 1.0, 0.0 // 0.5^i and S_{i−1}
		for s < r && w > 0 {
			w *= 0.5
			if reach := 1 - (r - s); reach > 0 {
				sum += float64(w * reach) // not fused into an FMA: the same sum on every machine
			}
			s += rng.Float64()
		}
	}
	return sum / strideMCPaths
}

// StrideSMax returns the maximum stride of a goroutine of length l for the ratio r = L/smax
// (StrideRatio): ⌈l/r⌉, as the paper's experiment sets it (§V-A, "the maximum stride … was
// set as the ceiling of L/r"), and at least 1 (a goroutine never seen running alongside
// others has length 0 and keeps the original randomized scheduling).
func StrideSMax(l int, r float64) int {
	if l <= 0 || r <= 0 {
		return 1
	}
	return max(1, int(math.Ceil(float64(l)/r)))
}
