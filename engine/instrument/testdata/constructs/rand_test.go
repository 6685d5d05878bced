package constructs

import (
	"fmt"
	"hash/maphash"
	"math/rand"
	randv2 "math/rand/v2"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// drew prints a line of values drawn from math/rand. Natively they differ from run to run;
// instrumented, every execution draws them from its own source with a fixed seed, so they
// are a function of the schedule: the test of the rewriter compares these lines ("~ ") of
// two instrumented runs, not with the native run.
func drew(format string, args ...any) { fmt.Printf("~ "+format+"\n", args...) }

func inRange[T int | int32 | int64 | time.Duration | uint8](vs []T, lo, hi T) bool {
	for _, v := range vs {
		if v < lo || v >= hi {
			return false
		}
	}
	return true
}

func TestRandTopLevel(t *testing.T) {
	// Two goroutines draw.
	var wg sync.WaitGroup
	ints := make([][]int, 2)
	durations := make([][]time.Duration, 2)
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 4 {
				ints[g] = append(ints[g], rand.Intn(1000))
				durations[g] = append(durations[g], randv2.N(10*time.Millisecond))
			}
		}()
	}
	wg.Wait()
	say("ranges %v %v", inRange(slices.Concat(ints...), 0, 1000), inRange(slices.Concat(durations...), 0, 10*time.Millisecond))
	drew("goroutines %v %v", ints, durations)

	i63 := []int64{rand.Int63n(50), rand.Int63(), randv2.Int64N(50)}
	i32 := []int32{rand.Int31n(7), randv2.Int32N(7), rand.Int31()}
	f := []float64{rand.Float64(), randv2.Float64(), float64(rand.Float32()), float64(randv2.Float32())}
	say("more ranges %v %v %v %v", inRange(i63[:1], 0, 50), inRange(i63[2:], 0, 50), inRange(i32[:2], 0, 7), slices.IndexFunc(f, func(x float64) bool { return x < 0 || x >= 1 }))
	u8 := randv2.N[uint8](200)
	drew("values %v %v %v %d %d %d %v %v", i63, i32, f, randv2.IntN(9), randv2.Uint64(), rand.Uint32(), u8, randv2.N(int64(1)<<40))

	p := rand.Perm(6)
	q := randv2.Perm(6)
	s := []string{"a", "b", "c", "d"}
	rand.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	randv2.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	drew("permutations %v %v %v", p, q, s)
	sort.Ints(p)
	sort.Ints(q)
	sort.Strings(s)
	say("permutations %v %v %v", p, q, s)
	b := make([]byte, 5)
	n, err := rand.Read(b)
	say("read %d %v", n, err)

	// Bad arguments panic as math/rand's functions do, at the call.
	try("Intn(0)", func() { rand.Intn(0) })
	try("Int63n(-1)", func() { rand.Int63n(-1) })
	try("Shuffle(-1)", func() { rand.Shuffle(-1, func(i, j int) {}) })
	try("v2 IntN(0)", func() { randv2.IntN(0) })
	try("v2 N(0)", func() { randv2.N(time.Duration(0)) })
	try("v2 N[int8](-3)", func() { randv2.N[int8](-3) })
	try("Perm(-1)", func() { rand.Perm(-1) })

	// Seed reseeds the source: in Go 1.24 and later a no-op natively (unless
	// GODEBUG=randseednop=0), instrumented the execution's source.
	rand.Seed(42)
	a := rand.Int63()
	rand.Seed(42)
	drew("reseeded %v", a == rand.Int63())
}

func TestRandValues(t *testing.T) {
	// Function values of the top-level functions draw from the same source.
	intn, float, n := rand.Intn, randv2.Float64, randv2.N[int]
	var shuffle func(int, func(i, j int)) = randv2.Shuffle
	var wg sync.WaitGroup
	var sum atomic.Int64
	draws := make(chan int, 6)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := intn(100)
			sum.Add(int64(v))
			draws <- v
			draws <- n(5)
		}()
	}
	wg.Wait()
	close(draws)
	var got []int
	for v := range draws {
		got = append(got, v)
	}
	x := float()
	s := []int{1, 2, 3}
	shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	say("values in range %v %v", inRange(got, 0, 100), x >= 0 && x < 1)
	drew("values %v %v %v %d", got, x, s, sum.Load())
	try("Intn value(0)", func() { intn(0) })
	try("N value(-1)", func() { n(-1) })

	// A *rand.Rand of the test's own is deterministic given its seed: left alone.
	own := rand.New(rand.NewSource(7))
	own2 := randv2.New(randv2.NewPCG(1, 2))
	ownIntn := own.Intn
	say("own sources %d %d %d %v", own.Intn(1000), ownIntn(1000), own2.IntN(1000), own.Perm(4))
}

// TestMaphashSeed: a seed maphash.MakeSeed makes picks a hash table's buckets. Natively it
// differs from run to run; instrumented, it is drawn from the execution's source, so that in
// one process the hashes it gives are a function of the schedule (across processes the
// runtime's hash keys differ anyway: the test of the rewriter checks the rewritten calls).
func TestMaphashSeed(t *testing.T) {
	seed := maphash.MakeSeed()
	newSeed := maphash.MakeSeed // as a value
	other := newSeed()
	say("maphash consistent %v, two seeds %v", maphash.String(seed, "key") == maphash.String(seed, "key"), maphash.String(seed, "key") != maphash.String(other, "key"))
}
