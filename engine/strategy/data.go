package strategy

import "github.com/interleave-dev/interleave/engine/internal/splitmix"

// Data nondeterminism (engine.DataSeeder): each randomized strategy gives an execution the seed
// of its math/rand values, derived from the execution's own seed, so that two executions draw
// different values and a schedule file's seeds replay both the interleaving and the data.
// Systematic strategies (DFS, IPB, IDB, PERIOD) hold the values fixed (seed 0): their search
// enumerates interleavings, and their claim of exhaustiveness names what they held fixed.

// dataSeed derives an execution's data seed from its scheduling seed (splitmix64 of a
// distinct stream): never 0, which stands for the fixed seed.
func dataSeed(seed uint64) uint64 {
	const stream = 0x6461746173656564 // "dataseed"
	x := splitmix.Mix((seed ^ stream) + 0x9e3779b97f4a7c15)
	if x == 0 {
		x = 1
	}
	return x
}

// DataSeed implements engine.DataSeeder.
func (r *Random) DataSeed() uint64 { return dataSeed(r.cur) }

// DataSeed implements engine.DataSeeder.
func (p *PCT) DataSeed() uint64 { return dataSeed(p.cur) }

// DataSeed implements engine.DataSeeder.
func (p *POS) DataSeed() uint64 { return dataSeed(p.cur) }

// DataSeed implements engine.DataSeeder.
func (r *RAPOS) DataSeed() uint64 { return dataSeed(r.cur) }

// DataSeed implements engine.DataSeeder.
func (s *Stride) DataSeed() uint64 { return dataSeed(s.seeds.cur) }

// DataSeed implements engine.DataSeeder: the current member's, when it has one.
func (p *Portfolio) DataSeed() uint64 {
	if p.cur < 0 {
		return 0
	}
	if ds, ok := p.members[p.cur].s.(interface{ DataSeed() uint64 }); ok {
		return ds.DataSeed()
	}
	return 0
}

// DataSeed implements engine.DataSeeder: the seed the replayed execution drew its values from.
func (r *Replay) DataSeed() uint64 { return r.dataSeed }
