// Package lazyinit loads a configuration lazily, on first use, without any
// synchronization.
//
// Get checks whether the configuration has been loaded and loads it if
// not (if cfg == nil { cfg = load() }). Called from two goroutines, each
// reads l.cfg once and, if it saw nil, loads the configuration and writes
// l.cfg; nothing orders one goroutine's accesses with the other's. The read
// in one goroutine races with the write in the other, and when both see nil
// the two writes race with each other (and the configuration is loaded
// twice). The goroutines only pass the returned pointer on; they do not
// read through it, so the fields of Config are not involved.
package lazyinit

// Config is a loaded configuration.
type Config struct {
	Name    string
	Retries int
}

func load() *Config {
	return &Config{Name: "default", Retries: 3}
}

// Loader loads the configuration on first use.
type Loader struct {
	cfg *Config
}

// Get returns the configuration, loading it if it has not been loaded.
func (l *Loader) Get() *Config {
	cfg := l.cfg // race
	if cfg == nil {
		cfg = load()
		l.cfg = cfg // race
	}
	return cfg
}
