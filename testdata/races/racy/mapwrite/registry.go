// Package mapwrite records values in a map without a lock.
//
// Set writes r.m[key]. Even when two goroutines set different keys, a map
// assignment reads and writes the map's internal state (its count, its
// buckets or groups, and the flag the runtime uses to detect concurrent
// writes), so two unsynchronized Sets on the same map are a data race on
// the map itself. The race detector reports it at the assignment; natively
// the runtime may instead stop the program with "concurrent map writes"
// when both assignments overlap, which is rare for two single assignments.
// The map field r.m itself is only read concurrently, which is not a race,
// and Len runs after the goroutines have been joined.
package mapwrite

// Registry maps names to values.
type Registry struct {
	m map[string]int
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{m: make(map[string]int)}
}

// Set records value under key.
func (r *Registry) Set(key string, value int) {
	r.m[key] = value // race
}

// Len returns the number of keys.
func (r *Registry) Len() int {
	return len(r.m)
}
