package splitmix

import "testing"

// TestMixKnownValues: SplitMix64's outputs for the seed 1234567 (the reference generator adds
// 0x9e3779b97f4a7c15 to its state, then mixes), as published with the algorithm.
func TestMixKnownValues(t *testing.T) {
	state := uint64(1234567)
	for _, want := range []uint64{6457827717110365317, 3203168211198807973, 9817491932198370423} {
		state += 0x9e3779b97f4a7c15
		if got := Mix(state); got != want {
			t.Fatalf("Mix(%#x) = %d, want %d", state, got, want)
		}
	}
}
