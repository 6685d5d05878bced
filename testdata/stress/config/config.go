// Package config holds a process-wide configuration that readers load without locks. It is
// the bundled example of a bug that needs two different tests running at once on shared
// package state: each of its tests passes alone, however often it runs.
//
// The bug: Reconfigure publishes the new shard list before the new shard count, in two
// stores, so a reader that loads between them sees a Config whose Count does not match its
// Shards.
package config

import "sync/atomic"

// Config is a set of shards.
type Config struct {
	Shards []string
	Count  int // len(Shards)
}

var current atomic.Pointer[Config]

func init() { current.Store(&Config{Shards: []string{"s0"}, Count: 1}) }

// Current returns the configuration in force.
func Current() *Config { return current.Load() }

// Reconfigure replaces the shards.
func Reconfigure(shards []string) {
	next := *current.Load()
	next.Shards = shards
	current.Store(&next) // published with the old count
	next2 := next
	next2.Count = len(shards)
	current.Store(&next2)
}
