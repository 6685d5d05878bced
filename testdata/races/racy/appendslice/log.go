// Package appendslice collects log entries in a slice without a lock.
//
// Add appends to l.entries: it reads the slice header (pointer, length,
// capacity), may copy the backing array into a larger one, writes the new
// element and writes the header back. Two goroutines calling Add on the
// same Log race on the header and on the backing array (one entry can
// overwrite or drop the other). Len and Entries are called only after the
// goroutines have been joined, so they are not racy.
package appendslice

// Log is an append-only list of entries.
type Log struct {
	entries []string
}

// Add appends an entry.
func (l *Log) Add(entry string) {
	l.entries = append(l.entries, entry) // race
}

// Len returns the number of entries.
func (l *Log) Len() int {
	return len(l.entries)
}
