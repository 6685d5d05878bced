package strategy

import "testing"

// TestStrideRatiosKnown: the ratios StrideRatio looks up are its Monte Carlo estimates, bit
// for bit, for the target probabilities they are looked up by.
func TestStrideRatiosKnown(t *testing.T) {
	ps := map[string]float64{"p1": StrideTargetProbability(0.99, 9900, 1), "p2": StrideTargetProbability(0.99, 9900, 2)}
	if len(strideRatiosKnown) != len(ps) {
		t.Fatalf("%d ratios known, want those of p1 and p2", len(strideRatiosKnown))
	}
	for name, p := range ps {
		known, ok := strideRatiosKnown[p]
		if !ok {
			t.Errorf("%s = %v: no ratio known", name, p)
			continue
		}
		r, err := estimateStrideRatio(p)
		if err != nil || r != known {
			t.Errorf("%s = %v: estimated %v (%v), known %v", name, p, r, err, known)
		}
	}
}
