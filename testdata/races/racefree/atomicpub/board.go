// Package atomicpub publishes data to readers through sync/atomic.
//
// Two ways: a Board writes its data with plain stores and then sets an
// atomic.Bool flag; a reader that loads true from the flag reads the data.
// A Feed builds a Snapshot with plain stores and publishes it with an
// atomic.Pointer; a reader that loads a non-nil pointer reads through it.
// An atomic store that is observed by an atomic load happens before that
// load returns (sync/atomic operations are sequentially consistent), so
// the readers' plain reads are ordered after the writer's plain writes by
// the atomics alone. A reader that loads false or nil reads nothing.
package atomicpub

import "sync/atomic"

// Board holds a list that is written once and then published.
type Board struct {
	items []string
	total int
	ready atomic.Bool
}

// Publish stores the items and then marks the board ready. It must be
// called once.
func (b *Board) Publish(items ...string) {
	b.items = items
	b.total = len(items)
	b.ready.Store(true)
}

// Read returns the items and their count, and whether they have been
// published.
func (b *Board) Read() (items []string, total int, ok bool) {
	if !b.ready.Load() {
		return nil, 0, false
	}
	return b.items, b.total, true
}

// Snapshot is an immutable set of readings.
type Snapshot struct {
	Seq      int
	Readings []int
}

// Feed publishes snapshots.
type Feed struct {
	current atomic.Pointer[Snapshot]
}

// Publish builds a snapshot and makes it the current one.
func (f *Feed) Publish(seq int, readings ...int) {
	s := new(Snapshot)
	s.Seq = seq
	s.Readings = append(s.Readings, readings...)
	f.current.Store(s)
}

// Current returns the current snapshot, or nil if none has been published.
func (f *Feed) Current() *Snapshot {
	return f.current.Load()
}
