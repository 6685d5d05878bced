// Package syncmap is issue 15's item 5: sync.Map and sync.Pool with Go's documented
// memory-model edges, not as if they synchronized everything. A Store happens before the Load
// that observes it, so a write made after the Store races with the reader; a Put happens
// before the Get that returns the value, so using a value after putting it back races with
// its next user.
package syncmap

import "sync"

// Session is a logged-in user.
type Session struct {
	User string
}

// OpenLate publishes the session before filling it in (the bug).
func OpenLate(m *sync.Map, id string) {
	s := &Session{}
	m.Store(id, s)
	s.User = id
}

// Open fills the session in before publishing it (the fix).
func Open(m *sync.Map, id string) {
	s := &Session{User: id}
	m.Store(id, s)
}

// UserOf reads the user of session id, if it is open.
func UserOf(m *sync.Map, id string) string {
	if v, ok := m.Load(id); ok {
		return v.(*Session).User
	}
	return ""
}

// buffer is a reusable byte buffer.
type buffer struct {
	data []byte
}

var buffers = sync.Pool{New: func() any { return new(buffer) }}

// FormatLate puts its buffer back before reading its length (the bug: the next user of the
// buffer may be writing to it).
func FormatLate(parts ...string) int {
	b := buffers.Get().(*buffer)
	b.data = b.data[:0]
	for _, p := range parts {
		b.data = append(b.data, p...)
	}
	buffers.Put(b)
	return len(b.data)
}

// Format reads the length before putting the buffer back (the fix).
func Format(parts ...string) int {
	b := buffers.Get().(*buffer)
	b.data = b.data[:0]
	for _, p := range parts {
		b.data = append(b.data, p...)
	}
	n := len(b.data)
	buffers.Put(b)
	return n
}
