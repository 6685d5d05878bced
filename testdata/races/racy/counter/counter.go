// Package counter counts events without any synchronization.
//
// Counter is not safe for concurrent use, but the test increments one
// Counter from several goroutines. The increment c.n++ reads and writes
// c.n; nothing orders one goroutine's increment with another's, so every
// pair of increments from different goroutines is a data race (and
// increments can be lost). Value is called only after the goroutines have
// been joined with a WaitGroup, so its read is ordered after every
// increment and is not a race.
package counter

// Counter counts events.
type Counter struct {
	n int
}

// Inc adds one to the count.
func (c *Counter) Inc() {
	c.n++ // race
}

// Value returns the count.
func (c *Counter) Value() int {
	return c.n
}
