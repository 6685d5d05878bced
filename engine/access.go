package engine

import "unsafe"

// This file holds the entry points the instrumenter (package instrument) rewrites memory
// accesses, map operations and method values to. Each keeps Go's semantics exactly: the
// scheduling point comes after the operands are evaluated and before the access itself, so
// a panic (nil dereference, index out of range, nil map) happens where the original would.

// Load is a read of *p: the scheduling point before the read, then the read.
func Load[T any](p *T, pos Pos) T {
	Read(unsafe.Pointer(p), pos)
	return *p
}

// Store is the assignment *p = v: the scheduling point after v is evaluated, then the write.
func Store[T any](p *T, v T, pos Pos) {
	Write(unsafe.Pointer(p), pos)
	*p = v
}

// mapAddr is the identity of a map for scheduling: its header pointer. A nil map has none.
func mapAddr[M ~map[K]V, K comparable, V any](m M) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&m))
}

// MapLoad is m[k] (a read of the whole map, as Go's race detector counts map accesses).
func MapLoad[M ~map[K]V, K comparable, V any](m M, k K, pos Pos) V {
	Read(mapAddr(m), pos)
	return m[k]
}

// MapLoad2 is v, ok := m[k].
func MapLoad2[M ~map[K]V, K comparable, V any](m M, k K, pos Pos) (V, bool) {
	Read(mapAddr(m), pos)
	v, ok := m[k]
	return v, ok
}

// MapStore is m[k] = v; it panics as Go does on a nil map, after v is evaluated.
func MapStore[M ~map[K]V, K comparable, V any](m M, k K, v V, pos Pos) {
	Write(mapAddr(m), pos)
	m[k] = v
	noteKey(k)
}

// MapDelete is delete(m, k).
func MapDelete[M ~map[K]V, K comparable, V any](m M, k K, pos Pos) {
	Write(mapAddr(m), pos)
	delete(m, k)
}

// MapClear is clear(m).
func MapClear[M ~map[K]V, K comparable, V any](m M, pos Pos) {
	Write(mapAddr(m), pos)
	clear(m)
}

// MapRead is a read of the whole map m that yields m: len(m) and the start of a range over m.
func MapRead[M ~map[K]V, K comparable, V any](m M, pos Pos) M {
	Read(mapAddr(m), pos)
	return m
}

// MakeChanOf is make(C, size) for a channel type C, so that a channel of a named type is
// made by the engine too.
func MakeChanOf[C ~chan T, T any](size int, pos Pos) C {
	return C(MakeChan[T](size, pos))
}

// Bind is the method value r.M of a method without arguments whose call is rewritten to
// f(r, pos) (mu.Unlock, wg.Done, ...): the receiver is evaluated when the value is made, as
// Go does.
func Bind[R any](r R, f func(R, Pos), pos Pos) func() {
	return func() { f(r, pos) }
}

// Wrote is the value v of the last result of a return statement that assigns named results,
// each of ps a pointer to one of them: the scheduling points after v is evaluated, the writes
// recorded; the return statement makes them. The last typed result is wrapped, so that the
// type of v is its own (the named results' types could not be inferred from values assignable
// to them); the results after it, if any, are untyped constants and nil, which evaluate to
// nothing.
func Wrote[T any](v T, pos Pos, ps ...any) T {
	Written(pos, ps...)
	return v
}

// Written records the writes of the named results ps (pointers) by a return statement whose
// results are all untyped constants or nil.
func Written(pos Pos, ps ...any) {
	for _, p := range ps {
		Write((*[2]unsafe.Pointer)(unsafe.Pointer(&p))[1], pos)
	}
}
