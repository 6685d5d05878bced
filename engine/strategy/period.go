package strategy

import (
	"fmt"
	"hash/fnv"
	"iter"
	"strconv"
	"strings"

	"github.com/interleave-dev/interleave/engine"
)

// PERIOD modes (seed 003, §3.2): the serialized scheduler of §3.2.1 and the parallel
// scheduler of §3.2.2, the paper's definitive one.
const (
	PeriodSerial   = "serial"
	PeriodParallel = "parallel"
)

// DefaultPeriods is the default period bound P. The paper tests SCTBench for bugs of depth
// ≤ 3 (§4.1.3), and the parallel scheduler triggers a d-depth bug with no more than d+1
// periods (§3.2.2): P = 4.
const DefaultPeriods = 4

// Period is PERIOD (seed 003: Wen et al., "Controlled Concurrency Testing via Periodical
// Scheduling", ICSE 2022): a systematic strategy that models an execution as a series of
// execution periods and explores, for period numbers p = 1..P, every p-period schedule of
// every dynamic key-point slice it discovers (Algorithm 1, §3.1).
//
// How the paper's notions map onto the engine:
//
//   - Key points are the engine's scheduling points: each step of a goroutine executes one
//     key point (the operation Decision.Pending reports).
//   - Threads are the goroutines the test body starts, directly or not: worker t_i is
//     goroutine G(i+1). The test body G0 is the paper's main thread, which allocates, creates
//     the threads and joins them and is in no schedule (Algorithm 1's input is "the number
//     of worker threads n"; the motivating example's slices list t0 and t1 only): it runs
//     whenever it is enabled. The interleavings of the test body's own operations with the
//     workers' are therefore not explored.
//   - A dynamic key-point slice (dkps, §3.1) lists, for every worker, the key points it
//     executed, in order (operation kind and position).
//   - Periods are realized by the engine's control instead of deadline scheduling (§3.3):
//     the k-th key point of thread t is assigned to a period by the schedule, and it may only
//     execute once the periods before are over (§3.3, rule i). Key points of t beyond the
//     schedule's count run in t's last period ("the extra key points of thread t0 are put in
//     the last period of thread t0", §2.2); threads the schedule does not mention run in the
//     schedule's last period (§3.2.2: threads not under surveillance "are left to run freely
//     in the last period"). A period is over when no enabled goroutine has a key point
//     assigned to it or to an earlier one (§3.3, rule iii: the lifetime of a period ends;
//     a thread blocked during its period misses it, and its key points run late, as soon as
//     they can). Within a period the goroutines run one at a time, each until it has
//     executed its key points of the period or blocks (no preemption, §3.3); the next is the
//     lowest-numbered one. A worker that yields (a busy-wait loop) waits for the next period,
//     as sched_yield does in the paper's executor ("hang the current thread's execution until
//     the next period", §3.3); in the last period, which has no next one, the workers that
//     yield take turns (round robin), so that a busy-waiting goroutine cannot starve the one
//     it waits for.
//
// The first execution is the paper's dry run (the prototype runs the program once to learn
// its threads): no schedule, every goroutine free. It gives the number of workers n, and the
// initial job is then "the smallest approximation assuming there is only one active key point
// in each thread", with the empty prefix (Algorithm 1, line 2).
//
// Data choices (which ready case of a select proceeds) are not part of the paper's model:
// PERIOD always takes the first alternative, and its exhaustion message says so when a
// choice had several.
type Period struct {
	mode string
	max  int // the bound P

	// choicesCut records that a data choice with several alternatives took the first only.
	choicesCut bool

	dryRun  bool // the dry run has been executed
	p       int  // the period number of the current pass (Algorithm 1, line 3)
	jobs    []*periodJob
	byKey   map[string]*periodJob // every job ever created, by its slice
	jobIdx  int                   // the job being explored in the current pass
	next    func() (periodSchedule, bool)
	stop    func()
	done    bool
	emptied bool // every job finished, during the pass of period number p: the space is ≤ p-1

	// executed holds the schedules already executed (the execution is a function of them),
	// each by a 64-bit hash of its key (executedHash): with a thousand workers a key is
	// kilobytes, and a run of thousands of schedules kept every one of them (45 MB after
	// 2,000 schedules of 1,000 goroutines). Two keys with one hash would make PERIOD skip a
	// schedule as executed, with a probability of about n²/2⁶⁵ for n schedules (3·10⁻⁸ for a
	// million).
	executed map[uint64]bool
	prev     periodSchedule // the schedule executed before the current one

	// The current execution.
	cur        periodSchedule
	curKey     string
	job        *periodJob
	assign     [][]periodBound // per worker: the period of each of its key points
	period     int             // the period being executed
	lastW      engine.GID      // the worker that executed the last worker step, unless it yielded
	spun       engine.GID      // the last worker that yielded
	yieldedIn  []int           // per worker: the last period during which it yielded, or -1
	executedKP [][]opKey       // per worker: the key points executed (the dkps)

	schedules int
	skipped   int // schedules generated but not executed: already executed under another job
	slices    int // jobs created

	lock *periodLockstep // the search in step with other processes (Lockstep), or nil
}

// periodJob is an exploration job: a slice and a schedule prefix (§3.1).
type periodJob struct {
	key      string
	counts   []int // key points of each worker in the slice
	total    int
	prefix   periodPrefix
	finished bool
}

// periodBound says that the key points of a thread before index end belong to period.
type periodBound struct {
	end, period int
}

// opKey is a key point of a slice: what a worker executed, and where.
type opKey struct {
	kind engine.OpKind
	pos  engine.Pos
}

// NewPeriod returns PERIOD with the given mode (PeriodSerial or PeriodParallel) and period
// bound P ≥ 1.
func NewPeriod(mode string, periods int) (*Period, error) {
	if mode != PeriodSerial && mode != PeriodParallel {
		return nil, fmt.Errorf("period: mode must be %q or %q, got %q", PeriodSerial, PeriodParallel, mode)
	}
	if periods < 1 {
		return nil, fmt.Errorf("period: the period bound must be ≥ 1, got %d", periods)
	}
	return &Period{mode: mode, max: periods, byKey: map[string]*periodJob{}, executed: map[uint64]bool{}}, nil
}

// Name implements engine.Strategy.
func (s *Period) Name() string { return "period" }

// Restart implements engine.Restarter: the scheduling points changed, and Algorithm 1 starts
// over with a dry run; the counts of schedules executed and skipped go on.
func (s *Period) Restart() {
	fresh, err := NewPeriod(s.mode, s.max)
	if err != nil {
		panic(err) // s was made by NewPeriod with the same arguments
	}
	s.Close() // the job's generator
	fresh.schedules, fresh.skipped, fresh.lock = s.schedules, s.skipped, s.lock
	*s = *fresh
}

// Close implements engine.Closer: it ends the current job's generator (as generate does when
// the job has no schedule left), whose goroutine would otherwise stay when the exploration is
// over. Explored again, the job's generator starts over, and the schedules it gives again are
// skipped as executed.
func (s *Period) Close() {
	if s.stop != nil {
		s.stop()
		s.next, s.stop = nil, nil
	}
}

// Params implements engine.Strategy: the mode and the period bound. Like the other systematic
// strategies, an execution is reproduced from its schedule file, not from its parameters.
func (s *Period) Params() map[string]string {
	return map[string]string{"mode": s.mode, "periods": strconv.Itoa(s.max)}
}

// Schedule returns the schedule of the current execution in the paper's notation, "" for
// the dry run.
func (s *Period) Schedule() string {
	if s.cur == nil {
		return ""
	}
	return s.cur.String()
}

// Periods returns the period number being explored (Algorithm 1's p), 0 during the dry run.
func (s *Period) Periods() int { return s.p }

// Schedules returns the number of executions so far (the dry run included), and the number
// of generated schedules that were not executed because the same schedule had already been
// executed for another job.
func (s *Period) Schedules() (executed, skipped int) { return s.schedules, s.skipped }

// Jobs returns the number of jobs created (slices explored), the initial one included.
func (s *Period) Jobs() int { return s.slices }

// Exhausted implements engine.Exhauster.
func (s *Period) Exhausted() string {
	var msg string
	if s.emptied {
		msg = fmt.Sprintf("all %d schedules explored: every slice's schedule space is exhausted within %d periods (%d slices)", s.schedules, s.p-1, s.slices)
	} else {
		msg = fmt.Sprintf("all %d schedules with ≤ %d periods explored (%d slices)", s.schedules, s.max, s.slices)
	}
	if s.choicesCut {
		msg += "; a select with several ready cases always took the first"
	}
	if s.lock != nil && s.lock.discarded > 0 {
		msg += fmt.Sprintf("; %d more executed in step with other processes on scheduling points a race had just changed", s.lock.discarded)
	}
	return msg
}

// Begin implements engine.Strategy: the next schedule of Algorithm 1's loops (lines 4–7 and
// 11), or false when every job has been explored with up to P periods (line 4) or no job is
// left (line 15).
func (s *Period) Begin() bool {
	s.cur, s.curKey, s.job = nil, "", nil
	s.period, s.lastW, s.spun = 0, engine.NoGoroutine, engine.NoGoroutine
	s.executedKP = s.executedKP[:0]
	s.yieldedIn = s.yieldedIn[:0]
	s.assign = s.assign[:0]
	if s.lock != nil {
		return s.beginLockstep()
	}
	if !s.dryRun {
		return true
	}
	for !s.done {
		sch, key, _, ok := s.generate()
		if !ok {
			continue
		}
		s.cur, s.curKey, s.job = sch, key, s.jobs[s.jobIdx]
		s.start()
		return true
	}
	return false
}

// generate returns the current job's next schedule that was not executed yet, and its key.
// ok is false when there is none to return this time: jobEnded when the job's generator ended
// (the pass goes on with the next job), otherwise when no job could be started or the
// schedule was executed before; the caller asks again.
func (s *Period) generate() (sch periodSchedule, key string, jobEnded, ok bool) {
	if s.next == nil && !s.nextJob() {
		return nil, "", false, false
	}
	sch, ok = s.next()
	if !ok {
		s.Close()
		s.jobIdx++
		return nil, "", true, false
	}
	key = sch.String()
	if s.executed[executedHash(key)] {
		s.skipped++
		return nil, "", false, false
	}
	return sch, key, false, true
}

// nextJob starts the generator of the next job of the pass, moving to the next period number
// after the last job. It returns false when there was no job to start.
func (s *Period) nextJob() bool {
	if s.jobIdx >= len(s.jobs) {
		// The pass over the jobs for p is over: drop the finished jobs (line 9) and go on
		// with one more period (line 17).
		live := s.jobs[:0]
		for _, j := range s.jobs {
			if !j.finished {
				live = append(live, j)
			}
		}
		clear(s.jobs[len(live):])
		s.jobs, s.jobIdx = live, 0
		if len(s.jobs) == 0 { // line 15: all feasible schedules explored
			s.done, s.emptied = true, true
			return false
		}
		s.p++
		if s.p > s.max {
			s.p = s.max
			s.done = true
			return false
		}
	}
	j := s.jobs[s.jobIdx]
	// Lines 8–10: the job is done when no schedule can have p periods or more: "if p were
	// greater than a job's total number of key points then some periods would be left empty".
	// Other jobs without p-period schedules (serial ones with fewer periods than threads, or
	// whose prefix does not fit) are only skipped for this p.
	if s.p > j.total {
		j.finished = true
		s.jobIdx++
		return false
	}
	gen := genParallel
	if s.mode == PeriodSerial {
		gen = genSerial
	}
	counts, p, pfx := j.counts, s.p, j.prefix
	s.next, s.stop = iter.Pull(func(yield func(periodSchedule) bool) { gen(counts, p, pfx, yield) })
	return true
}

// start prepares the periodical execution of the current schedule: the period of every key
// point of every worker of the slice.
func (s *Period) start() {
	last := len(s.cur) - 1
	workers := len(s.job.counts)
	ends := make([]int, workers)
	for len(s.assign) < workers {
		s.assign = append(s.assign, nil)
	}
	// One pass over the periods' slices, each appended to its worker's bounds in order.
	for pi, per := range s.cur {
		for _, sl := range per {
			if sl.t < workers {
				ends[sl.t] += sl.n
				s.assign[sl.t] = append(s.assign[sl.t], periodBound{ends[sl.t], pi})
			}
		}
	}
	for t := range workers {
		if len(s.assign[t]) == 0 {
			s.assign[t] = append(s.assign[t], periodBound{0, last})
		}
	}
}

// periodOf returns the period of the i-th key point (from 0) of worker w.
func (s *Period) periodOf(w, i int) int {
	if s.cur == nil {
		return 0 // the dry run: one period, everything free
	}
	if w >= len(s.assign) {
		return len(s.cur) - 1
	}
	bs := s.assign[w]
	for _, b := range bs {
		if i < b.end {
			return b.period
		}
	}
	return bs[len(bs)-1].period
}

// Pick implements engine.Strategy: the periodical executor (§3.3).
func (s *Period) Pick(d *engine.Decision) engine.GID {
	yielded := engine.NoGoroutine
	if d.LastOp == engine.OpYield {
		yielded = d.Last
	}
	g := s.choose(d, yielded)
	if g > 0 {
		w := int(g) - 1
		for n := len(s.executedKP); n <= w; n++ {
			// The workers' lists of the last execution are reused: with thousands of
			// workers, making each anew was a tenth of an execution's time.
			if n < cap(s.executedKP) {
				s.executedKP = s.executedKP[:n+1]
				s.executedKP[n] = s.executedKP[n][:0]
			} else {
				s.executedKP = append(s.executedKP, nil)
			}
		}
		op := d.Pending(g)
		s.executedKP[w] = append(s.executedKP[w], opKey{op.Kind, op.Pos})
		s.lastW = g
		if op.Kind == engine.OpYield {
			s.lastW, s.spun = engine.NoGoroutine, g
			for len(s.yieldedIn) <= w {
				s.yieldedIn = append(s.yieldedIn, -1)
			}
			s.yieldedIn[w] = s.period
		}
	}
	return g
}

// choose returns the goroutine of the next step.
func (s *Period) choose(d *engine.Decision, yielded engine.GID) engine.GID {
	// The test body, the paper's main thread, is in no period.
	if d.IsEnabled(0) && yielded != 0 {
		return 0
	}
	last := 0
	if s.cur != nil {
		last = len(s.cur) - 1
	}
	for {
		if s.lastW > 0 && s.lastW != yielded && d.IsEnabled(s.lastW) && s.eligible(s.lastW, last) {
			return s.lastW // no preemption within a period
		}
		// The lowest-numbered goroutine of the period; after a worker yielded, the next one
		// after it, round robin, so that busy-waiting workers give way in turn. The enabled
		// goroutines are walked in id order from there, and the walk stops at the first that
		// can run: with thousands of them, a step costs what it takes to find it.
		if g := s.firstEligible(d, max(s.spun+1, 1), engine.NoGoroutine, yielded, last); g != engine.NoGoroutine {
			return g
		}
		if g := s.firstEligible(d, 1, s.spun+1, yielded, last); g != engine.NoGoroutine {
			return g
		}
		if s.period < last {
			s.period++ // the period's lifetime is over
			continue
		}
		// Only the goroutine that yielded can run.
		return d.EnabledAt(0)
	}
}

// firstEligible returns the first enabled worker from id from on, below id to (NoGoroutine:
// no bound), other than yielded, that can run in the current period, or NoGoroutine.
func (s *Period) firstEligible(d *engine.Decision, from, to, yielded engine.GID, last int) engine.GID {
	for g := d.NextEnabled(from); g != engine.NoGoroutine && (to == engine.NoGoroutine || g < to); g = d.NextEnabled(g + 1) {
		if g != yielded && s.eligible(g, last) {
			return g
		}
	}
	return engine.NoGoroutine
}

// eligible reports whether worker goroutine g can run in the current period: its next key
// point belongs to it, and it did not yield during it (unless it is the last period).
func (s *Period) eligible(g engine.GID, last int) bool {
	w := int(g) - 1
	n := 0
	if w < len(s.executedKP) {
		n = len(s.executedKP[w])
	}
	if s.periodOf(w, n) > s.period {
		return false // its next key point belongs to a later period
	}
	if w < len(s.yieldedIn) && s.yieldedIn[w] >= s.period && s.period < last {
		return false // it yielded during this period: it waits for the next one
	}
	return true
}

// Choose implements engine.Strategy: PERIOD's model has no data choices; the first
// alternative is taken.
func (s *Period) Choose(c *engine.Choice) int {
	if c.N > 1 {
		s.choicesCut = true
	}
	return 0
}

// End implements engine.Strategy: the feedback analyzer (§3.4, Algorithm 1, lines 11–14).
func (s *Period) End(*engine.Result) {
	if s.lock != nil {
		s.endLockstep() // learnt from at the round's end
		return
	}
	s.schedules++
	counts := sliceCounts(s.executedKP)
	s.feedback(counts, func() string { return sliceKey(s.executedKP, counts) })
}

// sliceCounts returns the number of key points of each worker of a slice.
func sliceCounts(kps [][]opKey) []int {
	counts := make([]int, len(kps))
	for w, k := range kps {
		counts[w] = len(k)
	}
	return counts
}

// feedback is the feedback analyzer on the current execution, whose slice had counts key
// points per worker and is identified by key (called only when the slice is new to the job).
func (s *Period) feedback(counts []int, key func() string) {
	if !s.dryRun {
		// The dry run gives the number of workers; the initial job is one key point each.
		s.dryRun = true
		init := make([]int, len(counts))
		for i := range init {
			init[i] = 1
		}
		s.addJob(sliceKey(nil, init), init, emptyPrefix)
		return
	}
	s.executed[executedHash(s.curKey)] = true
	prev := s.prev
	s.prev = s.cur
	// "When a previously uncovered slice dkps is discovered, our feedback analyzer first
	// checks if it is supported by the original one. If not, we will consider to create a
	// new job for it." Supported: no thread has more key points than in the original slice.
	if supported(counts, s.job.counts) {
		return
	}
	pfx := getPrefix(s.cur, prev)
	k := key()
	if j, ok := s.byKey[k]; ok {
		// update_jobs: the job on this slice gets the common prefix.
		if !j.finished {
			j.prefix = j.prefix.common(pfx)
		}
		return
	}
	s.addJob(k, counts, pfx)
}

func (s *Period) addJob(key string, counts []int, pfx periodPrefix) {
	j := &periodJob{key: key, counts: counts, prefix: pfx}
	for _, n := range counts {
		j.total += n
	}
	s.byKey[key] = j
	s.jobs = append(s.jobs, j)
	s.slices++
}

// supported reports whether the slice a is supported by the slice b (§3.4): "the number of
// key points for each thread in dkps1 is not larger than the corresponding one in dkps2".
func supported(a, b []int) bool {
	for t, n := range a {
		m := 0
		if t < len(b) {
			m = b[t]
		}
		if n > m {
			return false
		}
	}
	return true
}

// executedHash is the 64-bit FNV-1a hash of a schedule's key, for Period.executed.
func executedHash(key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()
}

// sliceKey identifies a slice by the key points of its threads (the counts alone for the
// initial approximation, whose key points are unknown).
func sliceKey(kps [][]opKey, counts []int) string {
	var b strings.Builder
	if kps == nil {
		b.WriteString("approx:")
		for _, n := range counts {
			b.WriteString(strconv.Itoa(n))
			b.WriteByte(',')
		}
		return b.String()
	}
	for _, th := range kps {
		for _, k := range th {
			b.WriteString(strconv.Itoa(int(k.kind)))
			b.WriteByte('@')
			b.WriteString(k.pos)
			b.WriteByte(';')
		}
		b.WriteByte('|')
	}
	return b.String()
}

// getPrefix is the feedback analyzer's prefix of §3.4: "we compare the current schedule with
// its immediate previous schedule and locate the first different key point, let us say it is
// a key point from ti. We can assume the difference here leads us to the new slice, so we
// construct a schedule prefix by keeping everything before it literally and then adding a
// pattern period [ti]." The first schedule's previous schedule is the empty one.
//
// Schedules are compared key point by key point, each key point being its thread and the
// period it is in (so that [t0][t1 t2] and [t0][t1][t2] differ). The paper leaves open what
// happens when the first different key point is not the first of its period: the key points
// of its period before it are then its own thread's (a serial period) or the period is the
// last one; we keep the periods before its period literally and make its period the pattern
// [ti], whose count is free anyway. When the current schedule agrees with the previous one
// up to its end, its last key point is taken as the different one.
func getPrefix(cur, prev periodSchedule) periodPrefix {
	type kp struct{ period, t int }
	flat := func(s periodSchedule) []kp {
		var out []kp
		for pi, per := range s {
			for _, sl := range per {
				for range sl.n {
					out = append(out, kp{pi, sl.t})
				}
			}
		}
		return out
	}
	a, b := flat(cur), flat(prev)
	if len(a) == 0 {
		return emptyPrefix
	}
	x := 0
	for x < len(a) && x < len(b) && a[x] == b[x] {
		x++
	}
	if x == len(a) {
		x = len(a) - 1
	}
	q := a[x].period
	pfx := periodPrefix{pat: a[x].t}
	for _, per := range cur[:q] {
		pfx.lit = append(pfx.lit, per[0])
	}
	return pfx
}
