package clean

import (
	"expvar"
	"sync"
	"testing"

	"github.com/interleave-dev/interleave/engine/random"
)

func TestAdd(t *testing.T) {
	t.Parallel()
	var c Counter
	workers := random.Draw(t, "workers", random.NewUniform(1, 8))
	adds := random.Draw(t, "adds", random.NewExponential(1, 200))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range adds {
				c.Add(1)
				Shared.Add(1)
			}
		}()
	}
	wg.Wait()
	if got := c.Value(); got != workers*adds {
		t.Fatalf("Value = %d, want %d", got, workers*adds)
	}
}

func TestShared(t *testing.T) {
	t.Parallel()
	if !setUp {
		t.Fatal("TestMain's setup did not run")
	}
	cleaned := false
	t.Cleanup(func() { cleaned = true })
	t.Run("cleanup", func(t *testing.T) {
		if cleaned {
			t.Fatal("Cleanup ran before the test returned")
		}
	})
	before := Shared.Value()
	Shared.Add(1)
	if Shared.Value() <= before {
		t.Fatalf("Shared went from %d to %d after Add(1)", before, Shared.Value())
	}
}

// TestPublish publishes the counter with expvar, which panics when a name is published
// twice in a process: the test cannot run repeatedly in one process, and
// interleave-stress.json says so ("fresh"), so each of its iterations runs in a new one.
func TestPublish(t *testing.T) {
	v := expvar.NewInt("clean.shared")
	v.Set(int64(Shared.Value()))
	if got := expvar.Get("clean.shared"); got == nil || got.String() != v.String() {
		t.Fatalf("expvar clean.shared = %v, want %v", got, v)
	}
}
