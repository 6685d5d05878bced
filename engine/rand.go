package engine

import (
	randv1 "math/rand"
	"math/rand/v2"
)

// This file holds the engine's math/rand and math/rand/v2: the instrumenter rewrites a call of
// a top-level function of either package (rand.Intn(n), rand.Float64(), rand.Shuffle(n,
// swap), v2's rand.IntN(n) and rand.N(d), ...), and a function value of one, to the function
// here of the same name prefixed with Rand (math/rand) or RandV2 (math/rand/v2), with the
// position as last argument: rand.Intn(n) becomes RandIntn(n, pos), v2's rand.N(d) becomes
// RandV2N(d, pos).
//
// The global sources of those packages are seeded at random, so an execution that draws
// from them could not be replayed. In a controlled goroutine, each function here draws
// instead from its execution's own source (Exec.rand): a PCG made on first use with the same
// seed the strategy gives the execution (DataSeeder: a randomized strategy's differs per
// execution, a systematic strategy's is fixed), shared by the functions of both packages,
// recorded in the schedule file. The values an execution draws are then a function of its
// schedule and that seed: replaying the schedule draws them again.
// The results have the packages' types and semantics: the v1 functions are the methods of a
// math/rand.Rand over that source, the v2 functions those of a math/rand/v2.Rand, so that
// distributions and the panics on bad arguments ("invalid argument to Intn") are the
// packages' own. rand.Seed(s) reseeds the execution's source (in Go 1.24 and later, a real
// rand.Seed does nothing unless GODEBUG=randseednop=0: the values it would draw are random,
// and reseeded ones are one of their possible outcomes). A draw is not a scheduling point:
// only the goroutine that has control runs. Outside an execution, or in a goroutine the
// engine does not control, each function is the real one. Methods of a *rand.Rand the test
// makes itself are not rewritten: they are deterministic given its seed.

// randSeed1 and randSeed2 seed every execution's source.
const (
	randSeed1 = 0x696e7465726c6561 // "interlea"
	randSeed2 = 0x7665207365656473 // "ve seeds"
)

// randSource is the per-execution source of math/rand's top-level functions: one PCG, read by a
// math/rand/v2 Rand and, through v1Source, a math/rand Rand.
type randSource struct {
	pcg *rand.PCG
	v2  *rand.Rand
	v1  *randv1.Rand
}

func newRandSource(seed uint64) *randSource {
	pcg := rand.NewPCG(randSeed1^seed, randSeed2)
	return &randSource{pcg: pcg, v2: rand.New(pcg), v1: randv1.New(v1Source{pcg})}
}

// v1Source is the PCG as a math/rand Source64. Its Seed reseeds the PCG.
type v1Source struct{ pcg *rand.PCG }

func (s v1Source) Int63() int64    { return int64(s.pcg.Uint64() &^ (1 << 63)) }
func (s v1Source) Uint64() uint64  { return s.pcg.Uint64() }
func (s v1Source) Seed(seed int64) { s.pcg.Seed(uint64(seed), randSeed2) }

// randOf returns the execution's source when the caller is a controlled goroutine, making it
// on first use; nil otherwise.
func randOf(pos Pos) *randSource {
	e, g := current(pos)
	if g == nil {
		return nil
	}
	if e.rand == nil {
		var seed uint64
		if ds, ok := e.strategy.(DataSeeder); ok {
			seed = ds.DataSeed()
		}
		e.rand = newRandSource(seed)
		e.result.DataSeed, e.result.DrewData = seed, true
	}
	return e.rand
}

// ---- math/rand ----

// RandSeed is math/rand.Seed(seed): it reseeds the execution's source.
func RandSeed(seed int64, pos Pos) {
	if s := randOf(pos); s != nil {
		s.v1.Seed(seed)
		return
	}
	randv1.Seed(seed) //lint:ignore SA1019 the real function, outside an execution
}

// RandInt is math/rand.Int().
func RandInt(pos Pos) int {
	if s := randOf(pos); s != nil {
		return s.v1.Int()
	}
	return randv1.Int()
}

// RandInt31 is math/rand.Int31().
func RandInt31(pos Pos) int32 {
	if s := randOf(pos); s != nil {
		return s.v1.Int31()
	}
	return randv1.Int31()
}

// RandInt31n is math/rand.Int31n(n).
func RandInt31n(n int32, pos Pos) int32 {
	if s := randOf(pos); s != nil {
		return s.v1.Int31n(n)
	}
	return randv1.Int31n(n)
}

// RandInt63 is math/rand.Int63().
func RandInt63(pos Pos) int64 {
	if s := randOf(pos); s != nil {
		return s.v1.Int63()
	}
	return randv1.Int63()
}

// RandInt63n is math/rand.Int63n(n).
func RandInt63n(n int64, pos Pos) int64 {
	if s := randOf(pos); s != nil {
		return s.v1.Int63n(n)
	}
	return randv1.Int63n(n)
}

// RandIntn is math/rand.Intn(n).
func RandIntn(n int, pos Pos) int {
	if s := randOf(pos); s != nil {
		return s.v1.Intn(n)
	}
	return randv1.Intn(n)
}

// RandUint32 is math/rand.Uint32().
func RandUint32(pos Pos) uint32 {
	if s := randOf(pos); s != nil {
		return s.v1.Uint32()
	}
	return randv1.Uint32()
}

// RandUint64 is math/rand.Uint64().
func RandUint64(pos Pos) uint64 {
	if s := randOf(pos); s != nil {
		return s.v1.Uint64()
	}
	return randv1.Uint64()
}

// RandFloat32 is math/rand.Float32().
func RandFloat32(pos Pos) float32 {
	if s := randOf(pos); s != nil {
		return s.v1.Float32()
	}
	return randv1.Float32()
}

// RandFloat64 is math/rand.Float64().
func RandFloat64(pos Pos) float64 {
	if s := randOf(pos); s != nil {
		return s.v1.Float64()
	}
	return randv1.Float64()
}

// RandExpFloat64 is math/rand.ExpFloat64().
func RandExpFloat64(pos Pos) float64 {
	if s := randOf(pos); s != nil {
		return s.v1.ExpFloat64()
	}
	return randv1.ExpFloat64()
}

// RandNormFloat64 is math/rand.NormFloat64().
func RandNormFloat64(pos Pos) float64 {
	if s := randOf(pos); s != nil {
		return s.v1.NormFloat64()
	}
	return randv1.NormFloat64()
}

// RandPerm is math/rand.Perm(n).
func RandPerm(n int, pos Pos) []int {
	if s := randOf(pos); s != nil {
		return s.v1.Perm(n)
	}
	return randv1.Perm(n)
}

// RandShuffle is math/rand.Shuffle(n, swap).
func RandShuffle(n int, swap func(i, j int), pos Pos) {
	if s := randOf(pos); s != nil {
		s.v1.Shuffle(n, swap)
		return
	}
	randv1.Shuffle(n, swap)
}

// RandRead is math/rand.Read(p).
func RandRead(p []byte, pos Pos) (n int, err error) {
	if s := randOf(pos); s != nil {
		return s.v1.Read(p)
	}
	return randv1.Read(p) //lint:ignore SA1019 the real function, outside an execution
}

// ---- math/rand/v2 ----

// RandV2Int is math/rand/v2.Int().
func RandV2Int(pos Pos) int {
	if s := randOf(pos); s != nil {
		return s.v2.Int()
	}
	return rand.Int()
}

// RandV2Int32 is math/rand/v2.Int32().
func RandV2Int32(pos Pos) int32 {
	if s := randOf(pos); s != nil {
		return s.v2.Int32()
	}
	return rand.Int32()
}

// RandV2Int32N is math/rand/v2.Int32N(n).
func RandV2Int32N(n int32, pos Pos) int32 {
	if s := randOf(pos); s != nil {
		return s.v2.Int32N(n)
	}
	return rand.Int32N(n)
}

// RandV2Int64 is math/rand/v2.Int64().
func RandV2Int64(pos Pos) int64 {
	if s := randOf(pos); s != nil {
		return s.v2.Int64()
	}
	return rand.Int64()
}

// RandV2Int64N is math/rand/v2.Int64N(n).
func RandV2Int64N(n int64, pos Pos) int64 {
	if s := randOf(pos); s != nil {
		return s.v2.Int64N(n)
	}
	return rand.Int64N(n)
}

// RandV2IntN is math/rand/v2.IntN(n).
func RandV2IntN(n int, pos Pos) int {
	if s := randOf(pos); s != nil {
		return s.v2.IntN(n)
	}
	return rand.IntN(n)
}

// RandV2Uint is math/rand/v2.Uint().
func RandV2Uint(pos Pos) uint {
	if s := randOf(pos); s != nil {
		return s.v2.Uint()
	}
	return rand.Uint()
}

// RandV2Uint32 is math/rand/v2.Uint32().
func RandV2Uint32(pos Pos) uint32 {
	if s := randOf(pos); s != nil {
		return s.v2.Uint32()
	}
	return rand.Uint32()
}

// RandV2Uint32N is math/rand/v2.Uint32N(n).
func RandV2Uint32N(n uint32, pos Pos) uint32 {
	if s := randOf(pos); s != nil {
		return s.v2.Uint32N(n)
	}
	return rand.Uint32N(n)
}

// RandV2Uint64 is math/rand/v2.Uint64().
func RandV2Uint64(pos Pos) uint64 {
	if s := randOf(pos); s != nil {
		return s.v2.Uint64()
	}
	return rand.Uint64()
}

// RandV2Uint64N is math/rand/v2.Uint64N(n).
func RandV2Uint64N(n uint64, pos Pos) uint64 {
	if s := randOf(pos); s != nil {
		return s.v2.Uint64N(n)
	}
	return rand.Uint64N(n)
}

// RandV2UintN is math/rand/v2.UintN(n).
func RandV2UintN(n uint, pos Pos) uint {
	if s := randOf(pos); s != nil {
		return s.v2.UintN(n)
	}
	return rand.UintN(n)
}

// randInt is math/rand/v2's constraint of N.
type randInt interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// RandV2N is math/rand/v2.N(n): a value in [0, n), drawn as the package draws it.
func RandV2N[Int randInt](n Int, pos Pos) Int {
	if s := randOf(pos); s != nil {
		if n <= 0 {
			panic("invalid argument to N")
		}
		return Int(s.v2.Uint64N(uint64(n)))
	}
	return rand.N(n)
}

// RandV2Float32 is math/rand/v2.Float32().
func RandV2Float32(pos Pos) float32 {
	if s := randOf(pos); s != nil {
		return s.v2.Float32()
	}
	return rand.Float32()
}

// RandV2Float64 is math/rand/v2.Float64().
func RandV2Float64(pos Pos) float64 {
	if s := randOf(pos); s != nil {
		return s.v2.Float64()
	}
	return rand.Float64()
}

// RandV2ExpFloat64 is math/rand/v2.ExpFloat64().
func RandV2ExpFloat64(pos Pos) float64 {
	if s := randOf(pos); s != nil {
		return s.v2.ExpFloat64()
	}
	return rand.ExpFloat64()
}

// RandV2NormFloat64 is math/rand/v2.NormFloat64().
func RandV2NormFloat64(pos Pos) float64 {
	if s := randOf(pos); s != nil {
		return s.v2.NormFloat64()
	}
	return rand.NormFloat64()
}

// RandV2Perm is math/rand/v2.Perm(n).
func RandV2Perm(n int, pos Pos) []int {
	if s := randOf(pos); s != nil {
		return s.v2.Perm(n)
	}
	return rand.Perm(n)
}

// RandV2Shuffle is math/rand/v2.Shuffle(n, swap).
func RandV2Shuffle(n int, swap func(i, j int), pos Pos) {
	if s := randOf(pos); s != nil {
		s.v2.Shuffle(n, swap)
		return
	}
	rand.Shuffle(n, swap)
}
