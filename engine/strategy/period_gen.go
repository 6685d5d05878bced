package strategy

import (
	"strconv"
	"strings"
)

// This file is PERIOD's schedule generator (seed 003, Wen et al., "Controlled Concurrency
// Testing via Periodical Scheduling", ICSE 2022, §3.2): schedgen(dkps, p, pfx) of Algorithm 1,
// line 7. A schedule is a series of execution periods; a period says how many key points of
// which threads it hosts. Key points themselves are omitted: "a scheduler is concerned only
// with the number of key points from various threads and the order they interleave" (§2.2).

// periodSlot is a thread's share of a period: n key points of thread t. Thread t is the
// index of a worker in the dynamic key-point slice.
type periodSlot struct {
	t, n int
}

// periodSchedule is a schedule: its periods in order. A period of the serialized scheduler
// holds one slot; the last period of the parallel scheduler may hold several, in thread order
// (§3.2.2: "for consistency we write them in the lexicographical order").
type periodSchedule [][]periodSlot

// String writes the schedule as the paper does, with tx×n for n key points of tx:
// "[t0×2][t1×2][t0][t2]".
func (s periodSchedule) String() string {
	var b strings.Builder
	for _, per := range s {
		b.WriteByte('[')
		for i, sl := range per {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteByte('t')
			b.WriteString(strconv.Itoa(sl.t))
			if sl.n != 1 {
				b.WriteString("×")
				b.WriteString(strconv.Itoa(sl.n))
			}
		}
		b.WriteByte(']')
	}
	return b.String()
}

// periodPrefix is a schedule prefix (§3.2.2, last paragraph, and §3.4): {[tid0×n0] ...
// [tidi×ni]}[tidj]. The literal periods lit are kept exactly; the pattern period pat (a
// thread, or -1 for none) only fixes which thread the next period hosts, not how many of its
// key points. The empty prefix (no literal period, no pattern) is satisfied by every schedule.
type periodPrefix struct {
	lit []periodSlot
	pat int
}

// emptyPrefix is the prefix of the initial job (Algorithm 1, line 2).
var emptyPrefix = periodPrefix{pat: -1}

func (x periodPrefix) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for _, sl := range x.lit {
		b.WriteString(periodSchedule{{sl}}.String())
	}
	b.WriteByte('}')
	if x.pat >= 0 {
		b.WriteString("[t" + strconv.Itoa(x.pat) + "]")
	}
	return b.String()
}

func (x periodPrefix) equal(y periodPrefix) bool {
	if x.pat != y.pat || len(x.lit) != len(y.lit) {
		return false
	}
	for i := range x.lit {
		if x.lit[i] != y.lit[i] {
			return false
		}
	}
	return true
}

// common returns the common prefix of x and y, with which the feedback analyzer updates the
// prefix of an existing job (§3.4: "we update the prefix of the existing job as the common
// prefix of the newly constructed one and the original one"). The paper does not define it
// further. Our choice: the literal periods the two share from the start stay literal; at the
// first period where they differ, if both still name the same thread there (as a literal or
// as the pattern) that thread becomes the pattern, since a pattern period keeps the thread and
// frees the count; otherwise the common prefix has no pattern. This is the most specific
// prefix both prefixes satisfy.
func (x periodPrefix) common(y periodPrefix) periodPrefix {
	thread := func(p periodPrefix, i int) int {
		switch {
		case i < len(p.lit):
			return p.lit[i].t
		case i == len(p.lit):
			return p.pat
		}
		return -1
	}
	i := 0
	for i < len(x.lit) && i < len(y.lit) && x.lit[i] == y.lit[i] {
		i++
	}
	if i == len(x.lit) && i == len(y.lit) && x.pat == y.pat {
		return x
	}
	out := periodPrefix{lit: append([]periodSlot(nil), x.lit[:i]...), pat: -1}
	if tx, ty := thread(x, i), thread(y, i); tx >= 0 && tx == ty {
		out.pat = tx
	}
	return out
}

// satisfies reports whether s satisfies the prefix: "its first i periods are exactly the same
// as the prefix's first i periods and its next period has the same pattern" (§3.2.2). A
// period of several threads (the parallel scheduler's last period) has the pattern [tj] when
// it hosts key points of tj.
func (x periodPrefix) satisfies(s periodSchedule) bool {
	if len(s) <= len(x.lit) || (x.pat >= 0 && len(s) == len(x.lit)) {
		return len(x.lit) == 0 && x.pat < 0
	}
	for i, sl := range x.lit {
		if len(s[i]) != 1 || s[i][0] != sl {
			return false
		}
	}
	if x.pat < 0 {
		return true
	}
	for _, sl := range s[len(x.lit)] {
		if sl.t == x.pat {
			return true
		}
	}
	return false
}

// serialSchedules yields, in quasi-lexicographic order, every serialized schedule of p
// periods for the threads ts (ascending) of a slice whose thread t has k[t] ≥ 1 key points,
// that satisfies pfx on its serial periods (§3.2.1). The rules:
//
//	Rule 1. Each period only hosts key points from the same thread.
//	Rule 2. Key points in two adjacent periods should belong to different threads.
//	Rule 3. No execution period is left empty.
//	Rule 4. Thread ti appears exactly |dkps_i| times in a schedule.
//
// Patterns (the thread of each period) come in lexicographic order of their thread
// sequences: for the slice (3, 2, 1) and 4 periods the first is [t0][t1][t0][t2], the next
// [t0][t1][t2][t0] (§3.2.1). For each pattern, the key points are then allocated to the
// periods, at least one to each (Rule 3) and each thread's k[t] in all (Rule 4). The paper
// does not fix the order of the allocations; ours is the lexicographically decreasing order
// of the periods' counts, earlier periods taking more first, so that the example's first
// pattern gives [t0×2][t1×2][t0][t2] and then [t0][t1×2][t0×2][t2], the order in which the
// paper lists them.
//
// The prefix is applied to periods 0..len(pfx.lit) of the serial schedule; with patLast
// false the pattern period is not checked when it is the last period (the parallel
// scheduler checks it on the complete last period). yield returning false stops the
// generation, and serialSchedules then returns false. The schedule passed to yield is
// reused: yield must copy it to keep it.
func serialSchedules(k []int, ts []int, p int, pfx periodPrefix, patLast bool, yield func([]periodSlot) bool) bool {
	if p < 1 || len(ts) == 0 || len(pfx.lit) >= p {
		return true
	}
	pat := make([]int, p)
	uses := make(map[int]int, len(ts)) // periods of each thread in the pattern so far
	unused := len(ts)                  // threads not in the pattern so far
	rem := make(map[int]int, len(ts))  // key points of each thread not yet allocated
	left := make(map[int]int, len(ts)) // periods of each thread not yet allocated
	out := make([]periodSlot, p)

	var alloc func(j int) bool
	alloc = func(j int) bool {
		if j == p {
			return yield(out)
		}
		t := pat[j]
		left[t]--
		hi, lo := rem[t]-left[t], 1
		if left[t] == 0 {
			lo = hi // the thread's last period takes the rest
		}
		if j < len(pfx.lit) {
			n := pfx.lit[j].n
			if n < lo || n > hi {
				left[t]++
				return true
			}
			hi, lo = n, n
		}
		for c := hi; c >= lo; c-- {
			out[j] = periodSlot{t, c}
			rem[t] -= c
			ok := alloc(j + 1)
			rem[t] += c
			if !ok {
				left[t]++
				return false
			}
		}
		left[t]++
		return true
	}

	var pattern func(j int) bool
	pattern = func(j int) bool {
		if j == p {
			for _, t := range ts {
				rem[t], left[t] = k[t], uses[t]
			}
			return alloc(0)
		}
		for _, t := range ts {
			switch {
			case j > 0 && pat[j-1] == t: // Rule 2
				continue
			case uses[t] >= k[t]: // Rule 3: every period needs one of t's key points
				continue
			case j < len(pfx.lit) && t != pfx.lit[j].t:
				continue
			case j == len(pfx.lit) && pfx.pat >= 0 && (j < p-1 || patLast) && t != pfx.pat:
				continue
			}
			first := uses[t] == 0
			if first {
				unused--
			}
			uses[t]++
			// Rule 4: the periods left must be able to host every thread not used yet.
			if unused <= p-j-1 {
				pat[j] = t
				if !pattern(j + 1) {
					return false
				}
			}
			uses[t]--
			if first {
				unused++
			}
		}
		return true
	}
	return pattern(0)
}

// activeThreads returns the threads of the slice k that have key points, ascending.
func activeThreads(k []int) []int {
	var ts []int
	for t, n := range k {
		if n > 0 {
			ts = append(ts, t)
		}
	}
	return ts
}

// genSerial yields every serialized schedule of p periods of the slice k satisfying pfx
// (§3.2.1): schedgen with the serialized scheduler.
func genSerial(k []int, p int, pfx periodPrefix, yield func(periodSchedule) bool) {
	serialSchedules(k, activeThreads(k), p, pfx, true, func(ser []periodSlot) bool {
		s := make(periodSchedule, len(ser))
		for i := range ser {
			s[i] = []periodSlot{ser[i]}
		}
		return yield(s)
	})
}

// genParallel yields every schedule of p periods of the parallel scheduler (§3.2.2) for the
// slice k satisfying pfx. Rule 1 is loosened: "each period, apart from the last one, only
// hosts key points from the same thread". For the p-period schedules, every combination of
// 1 to min(p, n) threads is chosen, in order of size and then lexicographically; for each,
// the serialized schedules of the chosen threads alone are generated "as the mid-product",
// and the key points of the neglected threads are added to the last period.
//
// Two combinations can give the same complete schedule: when the last period's chosen thread
// tx has no earlier period, every combination T' ∪ {y} (T' the threads of the first p-1
// periods, y any thread outside T') gives the first p-1 periods followed by a last period
// hosting all the other threads. The paper does not mention these duplicates; we generate
// each complete schedule once, under the first combination that gives it, the one whose y is
// the smallest thread outside T' (combinations of one size are in lexicographic order).
func genParallel(k []int, p int, pfx periodPrefix, yield func(periodSchedule) bool) {
	ts := activeThreads(k)
	n := len(ts)
	inC := make(map[int]bool, n)
	inT := make(map[int]bool, n)
	comb := make([]int, 0, n)
	stopped := false
	emit := func(ser []periodSlot) bool {
		clear(inT)
		for _, sl := range ser[:p-1] {
			inT[sl.t] = true
		}
		if tx := ser[p-1].t; !inT[tx] {
			for _, t := range ts {
				if !inT[t] {
					if t != tx {
						return true // generated under an earlier combination
					}
					break
				}
			}
		}
		s := make(periodSchedule, p)
		for i := 0; i < p-1; i++ {
			s[i] = []periodSlot{ser[i]}
		}
		last := make([]periodSlot, 0, n-len(comb)+1)
		for _, t := range ts {
			switch {
			case t == ser[p-1].t:
				last = append(last, ser[p-1])
			case !inC[t]:
				last = append(last, periodSlot{t, k[t]})
			}
		}
		s[p-1] = last
		if len(pfx.lit) == p-1 && !pfx.satisfies(s) {
			return true
		}
		if !yield(s) {
			stopped = true
			return false
		}
		return true
	}
	var choose func(from, size int) bool
	choose = func(from, size int) bool {
		if len(comb) == size {
			return serialSchedules(k, comb, p, pfx, false, emit)
		}
		for i := from; i <= n-(size-len(comb)); i++ {
			comb = append(comb, ts[i])
			inC[ts[i]] = true
			ok := choose(i+1, size)
			inC[ts[i]] = false
			comb = comb[:len(comb)-1]
			if !ok {
				return false
			}
		}
		return true
	}
	for size := 1; size <= min(p, n) && !stopped; size++ {
		choose(0, size)
	}
}
