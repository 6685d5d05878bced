// Package doublecheck implements a codec registry with broken
// double-checked lazy initialization.
//
// Lookup checks the ready flag without the lock and, if it is not set,
// initializes the registry under the lock. The initializing goroutine builds
// the codec table, then sets the flag, and only then stores the table in
// the registry, so another goroutine can see
// the flag set, skip the lock, and read the table while it is still nil:
// the lookup of a registered codec fails. The bad interleaving is: the
// initializer stores the flag, the reader loads the flag and reads the
// table, then the initializer stores the table. The fix is to store the
// flag last, or to use sync.Once.
package doublecheck

import (
	"sync"
	"sync/atomic"
)

// Codec encodes values under a media type.
type Codec struct {
	MediaType string
}

// Registry maps codec names to codecs. It is initialized on first use.
type Registry struct {
	mu     sync.Mutex
	ready  atomic.Bool
	codecs map[string]Codec
}

// Lookup returns the codec registered under name.
func (r *Registry) Lookup(name string) (Codec, bool) {
	if !r.ready.Load() {
		r.mu.Lock()
		if !r.ready.Load() {
			table := defaultCodecs()
			// BUG: the flag is published before the table it guards.
			r.ready.Store(true)
			r.codecs = table
		}
		r.mu.Unlock()
	}
	c, ok := r.codecs[name]
	return c, ok
}

// defaultCodecs returns the built-in codec table.
func defaultCodecs() map[string]Codec {
	return map[string]Codec{
		"json": {MediaType: "application/json"},
		"xml":  {MediaType: "application/xml"},
		"text": {MediaType: "text/plain"},
	}
}
