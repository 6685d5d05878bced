package engine

import (
	"hash/maphash"
	"reflect"
	"unsafe"
)

// MaphashMakeSeed is hash/maphash.MakeSeed(): the instrumenter rewrites its calls to this, as
// it does math/rand's top-level functions (rand.go). A real seed is random, and a hash table
// that picks its buckets, shards or probe order by it (xsync's Map, a sharded cache) takes a
// different path in every execution: another number of locks and atomics, which a replay would
// not follow, and which a systematic strategy reports as a nondeterministic program. In a
// controlled goroutine the seed is drawn instead from the execution's source, so that it is a
// function of the schedule and the execution's data seed, as rand's values are. Outside an
// execution, or should maphash.Seed ever stop being one uint64, it is the real one.
func MaphashMakeSeed(pos Pos) maphash.Seed {
	s := randOf(pos)
	if s == nil || !seedIsUint64 {
		return maphash.MakeSeed()
	}
	var seed maphash.Seed
	// A seed of 0 is maphash's uninitialized one, which panics when used.
	*(*uint64)(unsafe.Pointer(&seed)) = s.pcg.Uint64() | 1
	return seed
}

// seedIsUint64 reports whether a maphash.Seed is what MaphashMakeSeed writes: one uint64.
var seedIsUint64 = func() bool {
	t := reflect.TypeFor[maphash.Seed]()
	return t.Size() == 8 && t.NumField() == 1 && t.Field(0).Type.Kind() == reflect.Uint64
}()
