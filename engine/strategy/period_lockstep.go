package strategy

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"

	"github.com/interleave-dev/interleave/engine"
)

// PERIOD in lockstep: the worker processes of one machine (-p) explore one test's PERIOD
// search together, exactly as one process would.
//
// PERIOD cannot be cut into parts that explore on their own (Partition): the slices it explores
// next are discovered by its executions (seed 003, Algorithm 1, lines 11–14). But the schedules
// of one job do not depend on each other's outcomes: a job's generator is fixed when the job
// starts (lines 5–7), and what the feedback analyzer learns from them (new jobs, the prefixes of
// update_jobs) acts only on later jobs. So the processes run the same search in step: each
// generates every schedule of the job, executes those whose index in the whole run is its own
// (index mod parts), and at the end of the job (a round) they exchange the key points each
// execution executed (its slice, §3.1); every process then applies all of them, in the order the
// whole run would have executed them, and goes on from the same state. The dry run is a round of
// its own. The union of the parts' executions is the whole run's, each executed once, and every
// part ends with the whole run's exhaustion claim.
//
// Racy scheduling points (engine.PointsSharer): in one process, an execution that sees a race
// on accesses that are not scheduling points makes them points, and the search starts over
// (Restart). In step, the positions each execution would make points travel with its slice,
// and the process that ran it announces it at once (Exchanger.Announce), so that none starts
// an execution of the round after it; at the end of the round every process applies the slices
// up to the first execution that found positions, makes its positions points and restarts —
// exactly what one process does. Executions of the round after that one that had started before
// the announcement came ran on the old points, which one process would not have run: they are
// counted and reported (their bugs and races are real), but the search learns nothing from them,
// numbers the next executions as if they had not run, and its claim of exhaustion counts them
// apart. (Which positions an execution reports does not depend on which process ran it: the
// race's positions that are not points yet, seen before in that process or not.)

// Exchanger carries a round's outcomes between the processes of a lockstep search.
type Exchanger interface {
	// Exchange gives this process's outcomes of the round and the number of the round's
	// executions it ran, and returns every process's outcomes, in any order, and the number
	// they ran together; or, when another process ended, the reason this one must stop (a
	// Report.Stopped value: "time", "canceled", …).
	Exchange(round int, mine []PeriodOutcome, executed int) (all []PeriodOutcome, executedAll int, end string, err error)
	// Announce tells the other processes that execution seq of the round found new racy
	// points. Announced returns the first such execution of the round announced so far by
	// any process, or -1.
	Announce(round, seq int)
	Announced(round int) int
}

// PeriodOutcome is what one execution of a lockstep PERIOD search taught it: its index in the
// round, its slice (§3.1) — the number of key points of each worker, and the slice's identity
// — and the positions of races first seen that would be new scheduling points. The identity
// is a hash of the key points (sliceKey), 128 bits of SHA-256: a slice is thousands of bytes,
// and all the search does with it is to tell whether a job on it exists.
//
// Most executions teach nothing: their slice is supported by their job's (§3.4) and they
// found no new points. Their outcomes are not sent (an execution without an outcome is such
// an execution), so that a round of thousands of executions costs a few bytes each.
type PeriodOutcome struct {
	Seq    int          `json:"Seq"`
	Counts []int        `json:"Counts,omitempty"` // nil: supported by its job's slice
	Key    string       `json:"Key,omitempty"`    // of a slice not supported (the dry run has none)
	Points []engine.Pos `json:"Points,omitempty"`
}

// lockstepKey is the identity of a slice in a lockstep search.
func lockstepKey(kps [][]opKey, counts []int) string {
	sum := sha256.Sum256([]byte(sliceKey(kps, counts)))
	return "h:" + base64.RawStdEncoding.EncodeToString(sum[:16])
}

// periodLockstep is the state of a lockstep search (nil when the search is alone).
type periodLockstep struct {
	index, count int
	ex           Exchanger
	budget       int // the whole run's schedules; 0: no bound

	round    int
	before   int         // executions of the whole run before this round
	pending  []periodRun // the round's executions so far, in the whole run's order
	mine     []PeriodOutcome
	executed int          // the round's executions this process ran
	cut      int          // the first execution of the round that found new racy points, here; -1: none
	agreed   []engine.Pos // racy points to make, agreed at the last round's end
	// discarded counts the executions run on racy points that an earlier execution of their
	// round made obsolete (one process would have run none of them).
	discarded int
	halted    string
	err       error
}

// periodRun is an execution of a round: its schedule (nil for the dry run) and job.
type periodRun struct {
	cur periodSchedule
	key string
	job *periodJob
}

// Lockstep makes s, which must be PERIOD, explore as part index of count processes running
// the same search in step (see above), with the whole run's budget of schedules (0: none).
// It must be called before the first Begin.
func Lockstep(s engine.Strategy, index, count, budget int, ex Exchanger) error {
	if err := CanLockstep(s); err != nil {
		return err
	}
	p := s.(*Period)
	if count < 1 || index < 0 || index >= count {
		return fmt.Errorf("lockstep part %d of %d: want 0 ≤ index < count", index, count)
	}
	p.lock = &periodLockstep{index: index, count: count, ex: ex, budget: budget, cut: -1}
	return nil
}

// CanLockstep says whether s can explore in lockstep (Lockstep), and if not why.
func CanLockstep(s engine.Strategy) error {
	if _, ok := s.(*Period); !ok {
		return fmt.Errorf("%s cannot explore in lockstep: only period does", s.Name())
	}
	return nil
}

// beginLockstep is Begin in step: the next schedule of the search that is this process's to
// execute, the rounds' outcomes exchanged on the way.
func (s *Period) beginLockstep() bool {
	l := s.lock
	for l.halted == "" {
		if !s.dryRun {
			// The dry run is a round of its own.
			if len(l.pending) == 0 {
				if s.issue(periodRun{}) {
					return true
				}
				continue
			}
			s.endRound()
			continue
		}
		if s.done {
			return false
		}
		sch, key, jobEnded, ok := s.generate()
		if jobEnded {
			s.endRound()
		}
		if !ok {
			continue
		}
		// Marked now rather than at its End: a job's generator gives each schedule once, so
		// the next schedules see the same set as in one process.
		s.executed[executedHash(key)] = true
		if s.issue(periodRun{sch, key, s.jobs[s.jobIdx]}) {
			return true
		}
	}
	return false
}

// issue adds run to the round and reports whether this process executes it (it is then the
// current execution). The budget stops every process at the same run. After an execution of
// the round that found new racy points, no run is added: the round ends.
func (s *Period) issue(run periodRun) bool {
	l := s.lock
	if c := l.firstCut(); c >= 0 && len(l.pending) > c {
		s.endRound()
		return false
	}
	n := l.before + len(l.pending) // the run's index in the whole run
	if l.budget > 0 && n >= l.budget {
		l.halted = "schedules"
		return false
	}
	l.pending = append(l.pending, run)
	if n%l.count != l.index {
		return false
	}
	l.executed++
	s.cur, s.curKey, s.job = run.cur, run.key, run.job
	if run.cur != nil {
		s.start()
	}
	return true
}

// endLockstep records the outcome of this process's execution, for the round's end.
func (s *Period) endLockstep() {
	l := s.lock
	o := PeriodOutcome{Seq: len(l.pending) - 1}
	counts := sliceCounts(s.executedKP)
	switch {
	case s.job == nil: // the dry run
		o.Counts = counts
	case !supported(counts, s.job.counts):
		o.Counts, o.Key = counts, lockstepKey(s.executedKP, counts)
	}
	l.mine = append(l.mine, o) // Points may come (ShareRacyPoints)
}

// firstCut returns the first execution of the round known to have found new racy points, or -1.
func (l *periodLockstep) firstCut() int {
	c := l.ex.Announced(l.round)
	if l.cut >= 0 && (c < 0 || l.cut < c) {
		c = l.cut
	}
	return c
}

// SharesRacyPoints implements engine.PointsSharer: in step with other processes.
func (s *Period) SharesRacyPoints() bool { return s.lock != nil }

// ShareRacyPoints implements engine.PointsSharer: in step, the positions go with the
// execution's outcome, and the execution is announced to the other processes.
func (s *Period) ShareRacyPoints(new []engine.Pos) {
	l := s.lock
	if len(new) > 0 && len(l.mine) > 0 {
		o := &l.mine[len(l.mine)-1]
		o.Points = append(o.Points, new...)
		if l.cut < 0 || o.Seq < l.cut {
			l.cut = o.Seq
			l.ex.Announce(l.round, o.Seq)
		}
	}
}

// AgreedRacyPoints implements engine.PointsSharer.
func (s *Period) AgreedRacyPoints() []engine.Pos {
	a := s.lock.agreed
	s.lock.agreed = nil
	return a
}

// Number implements engine.Numberer: the current execution's number in the whole run, which
// is the same in lockstep as in one process.
func (s *Period) Number() int {
	if s.lock == nil {
		return 0
	}
	return s.lock.before + len(s.lock.pending)
}

// Halted implements engine.Halter.
func (s *Period) Halted() (string, error) {
	if s.lock == nil {
		return "", nil
	}
	return s.lock.halted, s.lock.err
}

// endRound exchanges the round's outcomes and applies them, in the whole run's order, up to
// the first that found new racy points.
func (s *Period) endRound() {
	l := s.lock
	mine := l.mine[:0:0]
	for _, o := range l.mine {
		if o.Counts != nil || len(o.Points) > 0 {
			mine = append(mine, o)
		}
	}
	all, executed, end, err := l.ex.Exchange(l.round, mine, l.executed)
	switch {
	case err != nil:
		l.halted, l.err = "error", fmt.Errorf("period in lockstep, round %d: %w", l.round, err)
		return
	case end != "":
		l.halted = end
		return
	}
	fail := func(format string, args ...any) {
		l.halted, l.err = "error", fmt.Errorf("period in lockstep, round %d: "+format, append([]any{l.round}, args...)...)
	}
	// The round's last execution learnt from: the first that found new points, or its last.
	// Every process runs the round up to that one at least (it stops only after it), and to
	// its end when no execution found points.
	last, cut := len(l.pending)-1, false
	bySeq := map[int]*PeriodOutcome{}
	for i := range all {
		o := &all[i]
		if o.Seq < 0 || bySeq[o.Seq] != nil {
			fail("an outcome for execution %d, which is not one of the round's or came twice", o.Seq)
			return
		}
		bySeq[o.Seq] = o
		if len(o.Points) > 0 && (!cut || o.Seq < last) {
			last, cut = o.Seq, true
		}
	}
	for seq := range bySeq {
		if !cut && seq >= len(l.pending) || last >= len(l.pending) {
			fail("an outcome for execution %d, beyond the round's %d", max(seq, last), len(l.pending))
			return
		}
	}
	if len(l.pending) > 0 && l.pending[0].cur == nil && (bySeq[0] == nil || bySeq[0].Counts == nil) {
		fail("no outcome for the dry run")
		return
	}
	runs := l.pending[:last+1]
	l.round++
	l.before += len(runs)
	l.discarded += executed - len(runs)
	l.pending, l.mine, l.executed, l.cut = l.pending[:0:0], nil, 0, -1
	var points []engine.Pos
	for i, run := range runs {
		o := bySeq[i]
		s.schedules++
		if o == nil || o.Counts == nil {
			// Supported by its job's slice: the feedback analyzer only notes it as the
			// schedule executed before the next (getPrefix; executed was marked when the
			// schedule was generated).
			s.prev = run.cur
		} else {
			s.cur, s.curKey, s.job = run.cur, run.key, run.job
			s.feedback(o.Counts, func() string { return o.Key })
		}
		if o != nil && len(o.Points) > 0 {
			points = slices.Clone(o.Points)
		}
	}
	s.cur, s.curKey, s.job = nil, "", nil
	if len(points) > 0 {
		slices.Sort(points)
		l.agreed = points
		s.Restart()
	}
}
