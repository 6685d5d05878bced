package config

import (
	"fmt"
	"testing"

	"github.com/interleave-dev/interleave/engine/random"
)

// TestReconfigure changes the shards and checks the result.
func TestReconfigure(t *testing.T) {
	t.Parallel()
	n := random.Draw(t, "shards", random.NewWeighted(
		random.Range[int]{Min: 1, Max: 4, P: 0.8},
		random.Range[int]{Min: 5, Max: 64, P: 0.2}))
	shards := make([]string, n)
	for i := range shards {
		shards[i] = fmt.Sprintf("s%d", i)
	}
	Reconfigure(shards)
	if c := Current(); c.Count != len(c.Shards) {
		t.Fatalf("after Reconfigure: Count %d, %d shards", c.Count, len(c.Shards))
	}
}

// TestReaders reads the configuration as request handlers do.
func TestReaders(t *testing.T) {
	t.Parallel()
	reads := random.Draw(t, "reads", random.NewUniform(100, 1000))
	for range reads {
		if c := Current(); c.Count != len(c.Shards) {
			t.Fatalf("read a Config with Count %d and %d shards", c.Count, len(c.Shards))
		}
	}
}
