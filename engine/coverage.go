// The coverage a default budget's plateau is measured by (plateau.go): the pairs of operations
// in a row on an object.

package engine

// pairCoverage is the set of operation pairs the executions of an exploration covered: for
// each operation on an object, the operation just before it on the same object, both named by
// their kind and source position, and whether one goroutine made both. It is the
// happens-before pair set of coverage-guided concurrency testing (HaPSet: Wang, Said and
// Gupta, "Coverage Guided Systematic Concurrency Testing", ICSE 2011), over every object the
// engine schedules: channels, locks, wait groups, atomic variables, and the accesses that are
// scheduling points. Unlike the distinct interleavings, of which a program with a few
// goroutines and a few hundred steps has more than any budget runs (almost every execution
// is a new one), the pairs are bounded by the square of the program's operation sites, and a
// test covers them all in its first hundreds of executions: what is left to find once they
// stop growing is a rare order of operations that pairs already seen make up.
type pairCoverage struct {
	seen map[uint64]struct{}
	// cache holds pairs known to be in seen, by a hash of the pair: most steps repeat a pair
	// covered long ago, and this finds it without the map.
	cache [pairCacheSize]uint64
	// last is the execution's previous operation on each object, in an open-addressing
	// table whose entries of earlier executions are told apart by epoch.
	last  []pairLast
	used  int
	epoch uint32
}

const pairCacheSize = 1 << 12

type pairLast struct {
	obj   uintptr
	epoch uint32
	code  uint32 // the operation's kind and position (traceStep.code)
	g     GID
}

// pairKey names a pair: the two operations' codes (31 bits each) and whether one goroutine
// made both. The cache's empty entries (0) name no pair: an operation's code is never 0.
func pairKey(prev, cur uint32, same bool) uint64 {
	k := uint64(prev)<<32 | uint64(cur)<<1
	if same {
		k |= 1
	}
	return k
}

// covered returns the number of distinct pairs covered.
func (c *pairCoverage) covered() int { return len(c.seen) }

// add takes in an execution's trace and returns how many pairs it covered first.
func (c *pairCoverage) add(trace []traceStep) int {
	if c.seen == nil {
		c.seen = make(map[uint64]struct{})
		c.last = make([]pairLast, 64)
	}
	c.epoch++
	c.used = 0
	fresh := 0
	var (
		lastObj uintptr
		o       *pairLast
	)
	for i := range trace {
		s := &trace[i]
		if s.obj == 0 || s.isChoice() {
			continue
		}
		if s.obj != lastObj || o == nil {
			o = c.slot(s.obj)
			lastObj = s.obj
		}
		if o.code != 0 {
			k := pairKey(o.code, s.code, o.g == s.g)
			h := k * 0x9e3779b97f4a7c15 >> 52 // 12 bits
			if c.cache[h] != k {
				if _, ok := c.seen[k]; !ok {
					c.seen[k] = struct{}{}
					fresh++
				}
				c.cache[h] = k
			}
		}
		o.code, o.g = s.code, s.g
	}
	return fresh
}

// slot finds or adds the entry of obj in the table of the execution's last operations; the
// table grows at half full, which moves entries: the caller's pointer is good until the next
// slot call.
func (c *pairCoverage) slot(obj uintptr) *pairLast {
	if 2*(c.used+1) > len(c.last) {
		old := c.last
		c.last = make([]pairLast, 2*len(old))
		c.used = 0
		for _, e := range old {
			if e.epoch == c.epoch {
				*c.slot(e.obj) = e
			}
		}
	}
	mask := uintptr(len(c.last) - 1)
	for i := (obj * 0x9e3779b97f4a7c15 >> 20) & mask; ; i = (i + 1) & mask {
		e := &c.last[i]
		if e.epoch != c.epoch {
			*e = pairLast{obj: obj, epoch: c.epoch}
			c.used++
			return e
		}
		if e.obj == obj {
			return e
		}
	}
}
