// Package rlock implements a cache whose read path acquires its read lock
// recursively.
//
// Lookup takes the read lock and, while holding it, calls Contains, which
// takes the read lock again. A recursive RLock is fine until a writer
// arrives: once a goroutine is blocked in Lock, new RLock calls wait for
// that writer, and the writer waits for the outer read lock to be
// released. If Put calls Lock after Lookup's first RLock and before its
// second, Lookup and Put deadlock. The fix is an unexported helper that
// assumes the lock is held.
package rlock

import "sync"

// Cache is a string-to-string cache that is safe for concurrent use.
type Cache struct {
	mu    sync.RWMutex
	items map[string]string
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{items: make(map[string]string)}
}

// Contains reports whether key is in the cache.
func (c *Cache) Contains(key string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	_, ok := c.items[key]
	return ok
}

// Lookup returns the value for key, or fallback if key is not cached.
func (c *Cache) Lookup(key, fallback string) string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	// BUG: Contains takes the read lock again; a writer waiting in Lock
	// between the two RLock calls blocks this one forever.
	if !c.Contains(key) {
		return fallback
	}
	return c.items[key]
}

// Put stores value under key.
func (c *Cache) Put(key, value string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items[key] = value
}
