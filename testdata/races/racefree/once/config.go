// Package once loads a configuration lazily with sync.Once.
//
// Get calls l.once.Do(l.load) and then reads the map that load filled.
// The return from the one call of load happens before any Do returns, so
// every goroutine's reads are ordered after the writes in load by the Once
// alone, whichever goroutine ran it.
package once

import "sync"

// Loader loads its settings on first use; it is safe for concurrent use.
type Loader struct {
	once     sync.Once
	settings map[string]string
	loads    int
}

func (l *Loader) load() {
	l.settings = map[string]string{"region": "eu", "tier": "gold"}
	l.loads++
}

// Get returns the setting named key, loading the settings on first use,
// and the number of times they have been loaded.
func (l *Loader) Get(key string) (value string, loads int) {
	l.once.Do(l.load)
	return l.settings[key], l.loads
}
