package engine_test

import (
	"hash/maphash"
	"testing"

	"github.com/interleave-dev/interleave/engine"
)

// TestMaphashSeedSameInEveryExecution: a seed made in an execution is drawn from its source:
// the same in every execution under a fixed data seed, whatever the schedule, and a working
// seed (equal strings hash alike, another seed hashes them otherwise); outside an execution it
// is a real one.
func TestMaphashSeedSameInEveryExecution(t *testing.T) {
	var hashes [][2]uint64
	rep := spExplore(t, func(et *engine.T) {
		c := make(chan uint64, 2)
		for range 2 {
			engine.Go(func() {
				seed := engine.MaphashMakeSeed("h.go:2")
				if maphash.String(seed, "key") != maphash.String(seed, "key") {
					t.Error("a seed hashes one string two ways")
				}
				engine.Send(c, maphash.String(seed, "key"), "h.go:3")
			}, "h.go:1")
		}
		a, b := engine.Recv(c, "h.go:4"), engine.Recv(c, "h.go:5")
		hashes = append(hashes, [2]uint64{min(a, b), max(a, b)})
	}, randomStrategy(7), 20)
	spNoBug(t, rep)
	for i, h := range hashes {
		if h != hashes[0] {
			t.Fatalf("execution %d hashed %v, execution 1 %v", i+1, h, hashes[0])
		}
	}
	if hashes[0][0] == hashes[0][1] {
		t.Errorf("the two goroutines' seeds hash alike: %v", hashes[0])
	}
	if rep.Interleavings < 2 {
		t.Errorf("only %d interleavings", rep.Interleavings)
	}
	outside := engine.MaphashMakeSeed("h.go:6")
	if maphash.String(outside, "key") != maphash.String(outside, "key") {
		t.Error("a seed made outside an execution hashes one string two ways")
	}
}
