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
// Racy scheduling points (engine.PointsSharer): a race first seen while exploring makes new
// points and starts the search over (Restart). In step, the positions each execution would make
// points travel with its slice; at the end of the round every process applies the slices up to
// the first execution that found new positions, makes the positions of the whole round points,
// and restarts. This is where lockstep differs from one process, which would have restarted
// right after that execution: the round's later executions, run on the old points, were
// executed, counted and reported, but teach the search nothing.

// Exchanger carries a round's outcomes between the processes of a lockstep search.
type Exchanger interface {
	// Exchange gives this process's outcomes of the round and returns every process's, in any
	// order; or, when another process ended, the reason this one must stop (a Report.Stopped
	// value: "bug", "time", "canceled", …).
	Exchange(round int, mine []PeriodOutcome) (all []PeriodOutcome, end string, err error)
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

	round   int
	before  int         // executions of the whole run before this round
	pending []periodRun // the round's executions so far, in the whole run's order
	mine    []PeriodOutcome
	agreed  []engine.Pos // racy points to make, agreed at the last round's end
	halted  string
	err     error
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
	p.lock = &periodLockstep{index: index, count: count, ex: ex, budget: budget}
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
		if s.next == nil {
			if !s.nextJob() {
				continue
			}
		}
		sch, ok := s.next()
		if !ok {
			s.stop()
			s.next, s.stop = nil, nil
			s.jobIdx++
			s.endRound()
			continue
		}
		key := sch.String()
		if s.executed[key] {
			s.skipped++
			continue
		}
		// Marked now rather than at its End: a job's generator gives each schedule once, so
		// the next schedules see the same set as in one process.
		s.executed[key] = true
		if s.issue(periodRun{sch, key, s.jobs[s.jobIdx]}) {
			return true
		}
	}
	return false
}

// issue adds run to the round and reports whether this process executes it (it is then the
// current execution). The budget stops every process at the same run.
func (s *Period) issue(run periodRun) bool {
	l := s.lock
	n := l.before + len(l.pending) // the run's index in the whole run
	if l.budget > 0 && n >= l.budget {
		l.halted = "schedules"
		return false
	}
	l.pending = append(l.pending, run)
	if n%l.count != l.index {
		return false
	}
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

// ShareRacyPoints implements engine.PointsSharer: in step, the positions go with the
// execution's outcome.
func (s *Period) ShareRacyPoints(new []engine.Pos) bool {
	l := s.lock
	if l == nil {
		return false
	}
	if len(new) > 0 && len(l.mine) > 0 {
		o := &l.mine[len(l.mine)-1]
		o.Points = append(o.Points, new...)
	}
	return true
}

// AgreedRacyPoints implements engine.PointsSharer.
func (s *Period) AgreedRacyPoints() []engine.Pos {
	if s.lock == nil {
		return nil
	}
	a := s.lock.agreed
	s.lock.agreed = nil
	return a
}

// Number implements engine.Numberer: the current execution's number in the whole run, which
// is the same in lockstep as in one process.
func (s *Period) Number() int {
	if s.lock == nil {
		return s.schedules
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

// endRound exchanges the round's outcomes and applies them all, in the whole run's order.
func (s *Period) endRound() {
	l := s.lock
	mine := l.mine[:0:0]
	for _, o := range l.mine {
		if o.Counts != nil || len(o.Points) > 0 {
			mine = append(mine, o)
		}
	}
	all, end, err := l.ex.Exchange(l.round, mine)
	switch {
	case err != nil:
		l.halted, l.err = "error", fmt.Errorf("period in lockstep, round %d: %w", l.round, err)
		return
	case end != "":
		l.halted = end
		return
	}
	bySeq := make([]*PeriodOutcome, len(l.pending))
	for i := range all {
		o := &all[i]
		if o.Seq < 0 || o.Seq >= len(bySeq) || bySeq[o.Seq] != nil {
			l.halted, l.err = "error", fmt.Errorf("period in lockstep, round %d: an outcome for execution %d, which is not one of the round's %d or came twice", l.round, o.Seq, len(bySeq))
			return
		}
		bySeq[o.Seq] = o
	}
	if len(bySeq) > 0 && l.pending[0].cur == nil && (bySeq[0] == nil || bySeq[0].Counts == nil) {
		l.halted, l.err = "error", fmt.Errorf("period in lockstep, round %d: no outcome for the dry run", l.round)
		return
	}
	l.round++
	l.before += len(l.pending)
	runs := l.pending
	l.pending, l.mine = l.pending[:0:0], nil
	var points []engine.Pos
	learning := true
	for i, run := range runs {
		o := bySeq[i]
		s.schedules++
		switch {
		case !learning:
			// Executed on the old points: counted, not learnt from.
		case o == nil || o.Counts == nil:
			// Supported by its job's slice: the feedback analyzer only notes it as the
			// schedule executed before the next (getPrefix).
			s.executed[run.key] = true
			s.prev = run.cur
		default:
			s.cur, s.curKey, s.job = run.cur, run.key, run.job
			s.feedback(o.Counts, func() string { return o.Key })
		}
		if o == nil {
			continue
		}
		for _, p := range o.Points {
			if !slices.Contains(points, p) {
				points = append(points, p)
			}
		}
		if len(o.Points) > 0 {
			learning = false
		}
	}
	s.cur, s.curKey, s.job = nil, "", nil
	if len(points) > 0 {
		slices.Sort(points)
		l.agreed = points
		s.Restart()
	}
}
