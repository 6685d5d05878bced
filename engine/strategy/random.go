package strategy

import (
	"math/rand/v2"
	"strconv"

	"github.com/interleave-dev/interleave/engine"
)

// Stream constants of the PCG generators: the master generator that makes the list of
// per-execution seeds, and the generator of one execution.
const (
	masterStream = 0x5ec7_be9c_0000_0001
	execStream   = 0x5ec7_be9c_0000_0002
)

// seeds is the per-execution seeding of SCTBench §5 ("Notes on randomization"): a fixed
// initial seed generates a list of seeds, and execution i runs with seed i, so that any
// single execution is reproducible from its own seed alone (New with params
// {"seed": that seed} runs it first).
type seeds struct {
	master   *rand.Rand
	first    uint64
	hasFirst bool
	cur      uint64 // the seed of the current execution
	index    uint64 // executions of the unpartitioned list begun so far
	part     Part   // the part of the list this strategy runs (partition.go)
	pcg      *rand.PCG
	rng      *rand.Rand // the current execution's generator, on pcg
}

func newSeeds(seed uint64) seeds {
	pcg := rand.NewPCG(0, 0)
	return seeds{master: rand.New(rand.NewPCG(seed, masterStream)), pcg: pcg, rng: rand.New(pcg)}
}

// next seeds the generator of a new execution.
func (s *seeds) next() {
	for {
		if s.hasFirst {
			s.cur, s.hasFirst = s.first, false
		} else {
			s.cur = s.master.Uint64()
		}
		s.index++
		if s.part.ownsExecution(s.index - 1) {
			break
		}
	}
	s.pcg.Seed(s.cur, execStream)
}

// Number implements engine.Numberer: the current execution's number in the unpartitioned
// list of executions, 0 when this strategy runs the whole list.
func (s *seeds) Number() int {
	if s.part.Whole() {
		return 0
	}
	return int(s.index)
}

// Random is the controlled random scheduler of SCTBench §2.6: at every scheduling point it
// picks one of the enabled goroutines uniformly at random, and a data choice uniformly among
// its alternatives. Nothing is kept from one execution to the next except the list of seeds,
// so the same schedule may be explored twice and the search never completes. Yields get no
// special treatment (§3, "Busy-wait loops": the forced switch is for systematic testing only).
type Random struct {
	seeds
}

// NewRandom returns the random scheduler whose executions use the seeds generated from seed.
func NewRandom(seed uint64) *Random { return &Random{seeds: newSeeds(seed)} }

// Name implements engine.Strategy.
func (r *Random) Name() string { return "random" }

// Params implements engine.Strategy: the seed of the current execution.
func (r *Random) Params() map[string]string {
	return map[string]string{"seed": strconv.FormatUint(r.cur, 10)}
}

// Seed returns the seed of the current execution.
func (r *Random) Seed() uint64 { return r.cur }

// Begin implements engine.Strategy. It always returns true.
func (r *Random) Begin() bool {
	r.next()
	return true
}

// Pick implements engine.Strategy.
func (r *Random) Pick(d *engine.Decision) engine.GID { return d.EnabledAt(r.rng.IntN(d.NumEnabled())) }

// Choose implements engine.Strategy.
func (r *Random) Choose(c *engine.Choice) int { return r.rng.IntN(c.N) }

// End implements engine.Strategy.
func (r *Random) End(*engine.Result) {}
