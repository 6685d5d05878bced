// Package rwmutex is a cache guarded by a sync.RWMutex: one writer, many
// readers.
//
// Put writes the map and the version under the write lock; Get and
// Version read them under the read lock. The writer's Unlock happens
// before any later RLock returns, and a reader's RUnlock happens before a
// later Lock returns, so the writer and the readers are ordered by the
// RWMutex alone. Readers run concurrently with each other, which is fine:
// they only read.
package rwmutex

import "sync"

// Cache maps keys to values; it is safe for concurrent use.
type Cache struct {
	mu      sync.RWMutex
	entries map[string]string
	version int
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{entries: make(map[string]string)}
}

// Put stores value under key.
func (c *Cache) Put(key, value string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[key] = value
	c.version++
}

// Get returns the value stored under key, and the cache's version.
func (c *Cache) Get(key string) (value string, version int) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.entries[key], c.version
}
