package engine

import (
	"sync"
	"unsafe"
)

// sync.Map and sync.Pool under control.
//
// A sync.Map's methods are scheduling points on the map: Load and Range are reads
// (OpMapRead), the others writes (OpMapWrite). The real Map holds the entries (only one
// controlled goroutine runs at a time), and the race detector gets the edges of the Go memory
// model: a write operation (Store, Swap, LoadOrStore that stores, CompareAndSwap and
// CompareAndDelete that succeed, LoadAndDelete and Delete, Clear) is synchronized before any
// read operation that observes its effect (Load, LoadOrStore that loads, the loads of Swap and
// LoadAndDelete, Range's visit of the key). Each key has a clock that writes release into and
// reads acquire; Clear releases into a clock of the whole map that every operation acquires.
// Over-approximating an edge may hide a race, never report one that does not exist.
//
// A sync.Pool under control keeps what is Put in a shadow of the execution, not in the real
// pool: Get is a data choice between the last value Put (acquiring the clock of its Put: a Put
// is synchronized before the Get that returns its value) and a fresh value from New, as Go's
// pool may drop any value at any time (a garbage collection) — so a program that assumes Get
// returns what it Put, or a fresh value, is explored both ways. Outside an execution every
// function here is the real method.

// syncMapState is the detector's part of a sync.Map's shadow.
type syncMapState struct {
	keys  map[any]*vclock
	clear vclock
}

func syncMapOf(e *Exec, m *sync.Map) *syncMapState {
	return lookup(e, uintptr(unsafe.Pointer(m)), shadowSyncMap, func() *syncMapState { return &syncMapState{keys: map[any]*vclock{}} })
}

// mapPoint is the scheduling point of an operation on m; it returns the map's shadow when the
// race detector runs (nil otherwise) and the goroutine.
func mapPoint(m *sync.Map, kind OpKind, pos Pos) (*Exec, *goroutine, *syncMapState) {
	e, g := current(pos)
	if g == nil {
		return nil, nil, nil
	}
	e.point(g, kind, uintptr(unsafe.Pointer(m)), pos)
	nilCheck(unsafe.Pointer(m))
	if e.race == nil {
		return e, g, nil
	}
	s := syncMapOf(e, m)
	e.raceAcquire(g, s.clear)
	return e, g, s
}

// observe and wrote are the edges of a read and a write of key.
func (s *syncMapState) observe(e *Exec, g *goroutine, key any) {
	if s == nil {
		return
	}
	if c := s.keys[key]; c != nil {
		e.raceAcquire(g, *c)
	}
}

func (s *syncMapState) wrote(e *Exec, g *goroutine, key any) {
	if s == nil {
		return
	}
	c := s.keys[key]
	if c == nil {
		c = new(vclock)
		s.keys[key] = c
	}
	e.raceRelease(g, c)
}

// SyncMapLoad is m.Load(key).
func SyncMapLoad(m *sync.Map, key any, pos Pos) (value any, ok bool) {
	e, g, s := mapPoint(m, OpMapRead, pos)
	value, ok = m.Load(key)
	if g != nil {
		s.observe(e, g, key)
	}
	return value, ok
}

// SyncMapStore is m.Store(key, value).
func SyncMapStore(m *sync.Map, key, value any, pos Pos) {
	e, g, s := mapPoint(m, OpMapWrite, pos)
	m.Store(key, value)
	if g != nil {
		s.wrote(e, g, key)
	}
}

// SyncMapLoadOrStore is m.LoadOrStore(key, value).
func SyncMapLoadOrStore(m *sync.Map, key, value any, pos Pos) (actual any, loaded bool) {
	e, g, s := mapPoint(m, OpMapWrite, pos)
	actual, loaded = m.LoadOrStore(key, value)
	if g != nil {
		if loaded {
			s.observe(e, g, key)
		} else {
			s.wrote(e, g, key)
		}
	}
	return actual, loaded
}

// SyncMapLoadAndDelete is m.LoadAndDelete(key).
func SyncMapLoadAndDelete(m *sync.Map, key any, pos Pos) (value any, loaded bool) {
	e, g, s := mapPoint(m, OpMapWrite, pos)
	value, loaded = m.LoadAndDelete(key)
	if g != nil {
		s.observe(e, g, key)
		s.wrote(e, g, key)
	}
	return value, loaded
}

// SyncMapDelete is m.Delete(key).
func SyncMapDelete(m *sync.Map, key any, pos Pos) {
	e, g, s := mapPoint(m, OpMapWrite, pos)
	m.Delete(key)
	if g != nil {
		s.wrote(e, g, key)
	}
}

// SyncMapSwap is m.Swap(key, value).
func SyncMapSwap(m *sync.Map, key, value any, pos Pos) (previous any, loaded bool) {
	e, g, s := mapPoint(m, OpMapWrite, pos)
	previous, loaded = m.Swap(key, value)
	if g != nil {
		s.observe(e, g, key)
		s.wrote(e, g, key)
	}
	return previous, loaded
}

// SyncMapCompareAndSwap is m.CompareAndSwap(key, old, new).
func SyncMapCompareAndSwap(m *sync.Map, key, old, new any, pos Pos) (swapped bool) {
	e, g, s := mapPoint(m, OpMapWrite, pos)
	swapped = m.CompareAndSwap(key, old, new)
	if g != nil {
		s.observe(e, g, key)
		if swapped {
			s.wrote(e, g, key)
		}
	}
	return swapped
}

// SyncMapCompareAndDelete is m.CompareAndDelete(key, old).
func SyncMapCompareAndDelete(m *sync.Map, key, old any, pos Pos) (deleted bool) {
	e, g, s := mapPoint(m, OpMapWrite, pos)
	deleted = m.CompareAndDelete(key, old)
	if g != nil {
		s.observe(e, g, key)
		if deleted {
			s.wrote(e, g, key)
		}
	}
	return deleted
}

// SyncMapRange is m.Range(f): each key is observed before f sees it.
func SyncMapRange(m *sync.Map, f func(key, value any) bool, pos Pos) {
	e, g, s := mapPoint(m, OpMapRead, pos)
	if g == nil || s == nil {
		m.Range(f)
		return
	}
	m.Range(func(key, value any) bool {
		s.observe(e, g, key)
		return f(key, value)
	})
}

// SyncMapClear is m.Clear().
func SyncMapClear(m *sync.Map, pos Pos) {
	e, g, s := mapPoint(m, OpMapWrite, pos)
	m.Clear()
	if s != nil {
		e.raceRelease(g, &s.clear)
	}
}

// poolState is the shadow of a sync.Pool: the values Put and not yet taken, newest last, each
// with the clock of its Put.
type poolState struct {
	items []poolItem
}

type poolItem struct {
	v     any
	clock vclock
}

func poolOf(e *Exec, p *sync.Pool) *poolState {
	return lookup(e, uintptr(unsafe.Pointer(p)), shadowPool, func() *poolState { return &poolState{} })
}

// PoolGet is p.Get(): the last value Put, or a fresh one from p.New (nil without New), a
// choice when the pool holds a value.
func PoolGet(p *sync.Pool, pos Pos) any {
	e, g := current(pos)
	if g == nil {
		return p.Get()
	}
	e.point(g, OpPoolGet, uintptr(unsafe.Pointer(p)), pos)
	nilCheck(unsafe.Pointer(p))
	s := poolOf(e, p)
	if n := len(s.items); n > 0 && e.choose(g, 2) == 0 {
		it := s.items[n-1]
		s.items = s.items[:n-1]
		e.raceAcquire(g, it.clock)
		return it.v
	}
	if p.New == nil {
		return nil
	}
	return p.New()
}

// PoolPut is p.Put(x).
func PoolPut(p *sync.Pool, x any, pos Pos) {
	e, g := current(pos)
	if g == nil {
		p.Put(x)
		return
	}
	e.point(g, OpPoolPut, uintptr(unsafe.Pointer(p)), pos)
	nilCheck(unsafe.Pointer(p))
	if x == nil {
		return
	}
	s := poolOf(e, p)
	it := poolItem{v: x}
	e.raceRelease(g, &it.clock)
	s.items = append(s.items, it)
}
