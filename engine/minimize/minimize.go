// Package minimize shrinks a buggy schedule to one with as few preemptions as it can find
// that still exposes the same bug, so that the schedule a developer reads is short on
// context switches that have nothing to do with the bug.
//
// # Algorithm
//
// Minimize is delta debugging (Zeller and Hildebrandt's ddmin, "Simplifying and Isolating
// Failure-Inducing Input", 2002) over the preemptions of a schedule, with re-execution. A
// preemption is a step whose goroutine differs from the previous step's while that one was
// still enabled (engine.Result.Preemptions; SCTBench §2.3). Each preemption is identified by
// the point where it happens, the pair (g, c): goroutine g, the previously running one, has
// executed c steps. This identity survives the shifts that removing an earlier preemption
// causes, where a step index would not.
//
// A candidate keeps a subset of the current schedule's preemptions and runs the test body
// once under the following deterministic rule, the completion rule, at every step (Last is
// the goroutine of the previous step):
//
//  1. If Last is enabled and its point (Last, steps executed by Last) is a kept preemption,
//     the execution switches to the preemption's recorded target if it is enabled, and
//     otherwise to the goroutine other than Last chosen by rule 3; if no other goroutine is
//     enabled, Last continues.
//  2. If Last is enabled and its point is not a kept preemption (in particular at a removed
//     one), Last continues: no preemption.
//  3. Otherwise (the first step, or Last is blocked or finished) the execution follows the
//     current schedule's order: it runs the enabled goroutine whose next step (its k-th,
//     counting its own steps) comes earliest in the current schedule. Goroutines whose next
//     step is not in the schedule come last, and among them, the first in creation order
//     after Last (wrapping around) runs, as in the non-preemptive round-robin scheduler.
//
// Data choices (which ready case of a select proceeds) are not preemptions: the k-th choice
// that goroutine g makes during its c-th step takes the value it took in the current
// schedule, or alternative 0 when the schedule has no such choice or the value is out of
// range.
//
// The rule only preempts at kept points, so a candidate's execution has at most as many
// preemptions as it keeps. When the rule is applied with every preemption kept it re-executes
// the current schedule of a deterministic program exactly (every point lines up), which is
// why removing a preemption changes the execution only from that point on, as far as the
// program lets it.
//
// A candidate is accepted when its execution has a bug with the same identity as the
// original's (the same kind, at the same position, on the same operation: see Identity) and
// its recorded schedule replays, with the ordinary replay strategy, to that same execution.
// The accepted execution becomes the current schedule: its preemptions, recounted from the
// execution, are the new set to minimize, and ddmin goes on from there. The first candidate
// tried keeps no preemption at all. When ddmin ends, no single preemption of the result can
// be removed (the result is 1-minimal under the completion rule); a budget may stop it
// earlier, and the best schedule found so far is returned.
//
// 1-minimal is not always the fewest possible: removals alone cannot move a preemption to a
// better point, and a busy-wait loop whose preemption is removed spins until the step bound.
// The minimized schedule may also have more steps than the original, since the completion
// rule runs goroutines on until they block or end where the original was preempted.
//
// The package uses the standard library and the engine only: it is compiled into test
// binaries.
package minimize

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// StrategyName is the strategy name recorded in minimized schedule files. The original
// strategy is recorded in the parameters: "from" is its name, "from.<param>" its parameters,
// "from.execution" the number of the original execution (when known) and "from.preemptions"
// the original schedule's preemption count. A file minimized again keeps these parameters.
const StrategyName = "minimize"

// Options bound a minimization. The zero value has no budget.
type Options struct {
	// Root is the directory bug positions are made relative to (engine.Config.Root): the
	// schedule's module root, when its bug position is module-relative.
	Root string
	// Context cancels the minimization (its deadline is a time budget); the best schedule
	// found so far is returned.
	Context context.Context
	// Time bounds the minimization's wall-clock time; 0 means no bound.
	Time time.Duration
	// MaxExecutions bounds the number of executions, counting the replay of the original
	// schedule, the candidates and the replays that check accepted candidates; 0 means no
	// bound.
	MaxExecutions int
	// MaxSteps is the step bound of a candidate execution: a candidate that goes on longer
	// (a busy-wait loop that is no longer preempted spins) ends as a livelock, which is not
	// the original bug unless the original is a livelock. 0 means four times the original's
	// steps plus 1000. For a livelock schedule the bound is always the original's, which is
	// what makes the livelock.
	MaxSteps int
	// Watchdog is engine.Config.Watchdog for every execution; 0 means the engine's default.
	Watchdog time.Duration
	// OnAccepted, when set, is called after each accepted candidate with the new preemption
	// count and the number of executions so far (for progress messages).
	OnAccepted func(preemptions, executions int)
}

// Why a minimization stopped (Result.Stopped).
const (
	StoppedMinimal    = "minimal"    // ddmin ended: no single preemption can be removed
	StoppedExecutions = "executions" // Options.MaxExecutions was reached
	StoppedTime       = "time"       // Options.Time or the deadline of Options.Context was reached
	StoppedCanceled   = "canceled"   // Options.Context was canceled
)

// Result is the outcome of a minimization.
type Result struct {
	// File is the smallest schedule found. It is the original file itself (the same
	// pointer, unchanged) when no schedule with fewer preemptions was found; otherwise a new
	// file for the same test, whose strategy is StrategyName (see there), and which replays
	// with strategy.NewReplayFile to the same bug.
	File *schedule.File
	// Bug is the bug of File's execution.
	Bug *engine.Bug
	// Identity is the identity of the bug that every accepted candidate exposed.
	Identity Identity
	// Before and After are the preemption counts of the original schedule and of File, as
	// the engine counts them in the executions.
	Before, After int
	// Executions is the number of executions run, in all; Candidates how many of them were
	// candidates, and Accepted how many candidates were kept.
	Executions int
	Candidates int
	Accepted   int
	// Rejected candidates, by reason: the execution passed, it had a bug with another
	// identity, or it did not end normally or did not replay exactly (a limitation, an
	// error, a nondeterministic program).
	Passed, OtherBug, Failed int
	// Stopped says why the minimization stopped: one of the Stopped* constants.
	Stopped string
}

// Identity identifies a bug across schedules: its kind, its position (the panic site, the
// failing check, the blocked operation) and the kind of operation the failing goroutine was
// at. The message is not part of it (it may quote values), nor the goroutine's id (an
// identical worker may fail instead).
type Identity struct {
	Kind engine.BugKind
	Pos  engine.Pos
	Op   string
}

func (id Identity) String() string {
	if id.Op == "" {
		return fmt.Sprintf("%s at %s", id.Kind, id.Pos)
	}
	return fmt.Sprintf("%s at %s (%s)", id.Kind, id.Pos, id.Op)
}

// IdentityOf returns the identity of bug b.
func IdentityOf(b *engine.Bug) Identity {
	id := Identity{Kind: b.Kind, Pos: b.Pos}
	if b.G >= 0 && int(b.G) < len(b.Goroutines) && b.Goroutines[b.G].Pending.Kind != engine.OpNone {
		id.Op = b.Goroutines[b.G].Pending.Kind.String()
	}
	return id
}

// ErrNoBug is returned by Minimize for a schedule without a bug.
var ErrNoBug = errors.New("the schedule has no bug to minimize for")

// Minimize shrinks the schedule f of body (a test body as engine.Explore runs it) to one with
// as few preemptions as it can find that exposes the same bug: see the package
// documentation. It first replays f with strategy.NewReplayFile and returns an error if that
// does not reproduce f's bug. When the budget of opts runs out, the best schedule found so far
// is returned, with a nil error; if it runs out before f could even be replayed, the result
// holds f with its recorded preemption count.
//
// Like engine.Explore, Minimize runs executions one at a time, and waits for an exploration in
// progress to end: call it after engine.Explore returns, never from Config.OnExecution (which
// would wait forever) or from a test body.
func Minimize(body func(*engine.T), f *schedule.File, opts Options) (*Result, error) {
	if f == nil {
		return nil, errors.New("minimize: no schedule")
	}
	if f.Bug == nil {
		return nil, fmt.Errorf("minimize %s: %w", f.Test, ErrNoBug)
	}
	if err := new(engine.Config).UseFile(f); err != nil {
		return nil, fmt.Errorf("minimize: %w", err)
	}
	m := newMinimizer(body, f, opts)
	res := &Result{File: f, Before: f.Result.Preemptions, After: f.Result.Preemptions}
	m.res = res

	// The original, replayed as any replay would, recording its preemptions.
	if stop := m.exhausted(); stop != "" {
		res.Stopped = stop
		return res, nil
	}
	rec := &recording{Replay: strategy.NewReplayFile(f)}
	r := m.run(rec, engine.ReplayMaxSteps(f))
	if err := engine.CheckReproduced(f, r); err != nil {
		return nil, fmt.Errorf("minimize: %w", err)
	}
	res.Bug = r.Bug
	res.Identity = IdentityOf(r.Bug)
	res.Before, res.After = r.Preemptions, r.Preemptions
	if m.opts.MaxSteps == 0 {
		m.opts.MaxSteps = 4*r.Steps + 1000
	}
	if r.Bug.Kind == engine.Livelock {
		m.opts.MaxSteps = engine.ReplayMaxSteps(f)
	}
	cur := newBasis(r.Schedule, rec.preemptions)

	res.Stopped = m.ddmin(&cur)
	if res.Accepted > 0 {
		res.File = m.file(cur.result)
		res.Bug = cur.result.Bug
		res.After = cur.result.Preemptions
	}
	return res, nil
}

// minimizer holds the state of one minimization.
type minimizer struct {
	body  func(*engine.T)
	orig  *schedule.File
	opts  Options
	start time.Time
	res   *Result
}

func newMinimizer(body func(*engine.T), f *schedule.File, opts Options) *minimizer {
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	return &minimizer{body: body, orig: f, opts: opts, start: time.Now()}
}

// exhausted returns why the budget does not allow another execution, or "".
func (m *minimizer) exhausted() string {
	switch err := m.opts.Context.Err(); {
	case errors.Is(err, context.DeadlineExceeded):
		return StoppedTime
	case err != nil:
		return StoppedCanceled
	case m.opts.Time > 0 && time.Since(m.start) >= m.opts.Time:
		return StoppedTime
	case m.opts.MaxExecutions > 0 && m.res.Executions >= m.opts.MaxExecutions:
		return StoppedExecutions
	}
	return ""
}

// run runs one execution of the body under s.
func (m *minimizer) run(s engine.Strategy, maxSteps int) *engine.Result {
	m.res.Executions++
	cfg := engine.Config{
		Name:     m.orig.Test.Name,
		MaxSteps: maxSteps,
		Watchdog: m.opts.Watchdog,
		Root:     m.opts.Root,
	}
	cfg.UseFile(m.orig) // validated by Minimize
	return engine.Run(m.body, s, cfg)
}

// ddmin minimizes the preemptions of cur, replacing cur by every accepted candidate. It
// returns why it stopped.
func (m *minimizer) ddmin(cur *basis) string {
	// First the schedule without any preemption: bugs that need none are common.
	if len(cur.preemptions) > 0 {
		ok, stop := m.try(cur, nil)
		if stop != "" {
			return stop
		}
		if ok {
			return StoppedMinimal
		}
	}
	n := 2
	for len(cur.preemptions) > 0 {
		p := len(cur.preemptions)
		n = min(n, p)
		chunks := split(p, n)
		reduced := false
		// Each chunk alone (when there are at least two), then each complement (unless there
		// are exactly two chunks, whose complements are the chunks).
		if n >= 2 {
			for _, c := range chunks {
				ok, stop := m.try(cur, c)
				if stop != "" {
					return stop
				}
				if ok {
					n, reduced = 2, true
					break
				}
			}
		}
		if !reduced && n != 2 {
			for i := range chunks {
				ok, stop := m.try(cur, complement(chunks, i))
				if stop != "" {
					return stop
				}
				if ok {
					n, reduced = max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= p {
				break
			}
			n = min(2*n, p)
		}
	}
	return StoppedMinimal
}

// split divides the indexes 0..p-1 into n consecutive chunks of nearly equal sizes.
func split(p, n int) [][]int {
	chunks := make([][]int, 0, n)
	start := 0
	for i := range n {
		end := start + (p-start)/(n-i)
		c := make([]int, 0, end-start)
		for j := start; j < end; j++ {
			c = append(c, j)
		}
		chunks = append(chunks, c)
		start = end
	}
	return chunks
}

// complement returns the indexes of every chunk but chunks[skip].
func complement(chunks [][]int, skip int) []int {
	var out []int
	for i, c := range chunks {
		if i != skip {
			out = append(out, c...)
		}
	}
	return out
}

// try runs the candidate that keeps the preemptions keep (indexes into cur.preemptions) and,
// if it exposes the bug and replays exactly, makes it the current schedule. stop is set when
// the budget ran out before the candidate could be decided.
func (m *minimizer) try(cur *basis, keep []int) (accepted bool, stop string) {
	if len(keep) == 0 && cur.emptyTried {
		return false, "" // the same candidate as before
	}
	if stop := m.exhausted(); stop != "" {
		return false, stop
	}
	if len(keep) == 0 {
		cur.emptyTried = true
	}
	g := newGuided(cur, keep)
	g.dataSeed = m.orig.DataSeed
	m.res.Candidates++
	r := m.run(g, m.opts.MaxSteps)
	switch {
	case r.Err != nil || r.Limitation != nil:
		m.res.Failed++
		return false, ""
	case r.Bug == nil:
		m.res.Passed++
		return false, ""
	case IdentityOf(r.Bug) != m.res.Identity:
		m.res.OtherBug++
		return false, ""
	case r.Preemptions >= len(cur.preemptions):
		// Cannot happen (the rule preempts only at kept points); a candidate that does not
		// reduce is not progress.
		m.res.Failed++
		return false, ""
	}
	// The schedule must replay as a file would be replayed.
	if stop := m.exhausted(); stop != "" {
		return false, stop
	}
	f := m.file(r)
	rr := m.run(strategy.NewReplayFile(f), engine.ReplayMaxSteps(f))
	if engine.CheckReproduced(f, rr) != nil {
		m.res.Failed++
		return false, ""
	}
	m.res.Accepted++
	*cur = newBasis(r.Schedule, g.preemptions)
	cur.result = r
	if m.opts.OnAccepted != nil {
		m.opts.OnAccepted(r.Preemptions, m.res.Executions)
	}
	return true, ""
}

// file describes the execution r as a minimized schedule file of the original test.
func (m *minimizer) file(r *engine.Result) *schedule.File {
	f := engine.NewScheduleFile(r, m.orig.Test, nil, 0)
	f.Points, f.RacyPoints, f.DataSeed = m.orig.Points, m.orig.RacyPoints, m.orig.DataSeed
	if m.orig.Strategy.Name == StrategyName {
		f.Strategy = schedule.Strategy{Name: StrategyName, Params: maps.Clone(m.orig.Strategy.Params)}
		return f
	}
	p := map[string]string{
		"from.preemptions": strconv.Itoa(m.res.Before),
	}
	if m.orig.Strategy.Name != "" {
		p["from"] = m.orig.Strategy.Name
	}
	for k, v := range m.orig.Strategy.Params {
		p["from."+k] = v
	}
	if m.orig.Execution > 0 {
		p["from.execution"] = strconv.Itoa(m.orig.Execution)
	}
	f.Strategy = schedule.Strategy{Name: StrategyName, Params: p}
	return f
}

// point is a scheduling point, identified by the goroutine that ran last and the number of
// steps it has executed.
type point struct {
	g engine.GID
	c int
}

// preemption is a preemption of an execution: at point at, the execution switched to target
// while at.g was still enabled.
type preemption struct {
	at     point
	target engine.GID
}

// choicePoint identifies a data choice: the k-th choice (from 0) made by goroutine g during
// its c-th step.
type choicePoint struct {
	g    engine.GID
	c, k int
}

// basis is the current schedule as the completion rule uses it.
type basis struct {
	// order[g][k] is the index among the schedule's goroutine steps of g's (k+1)-th step.
	order [][]int
	// choices are the values of the data choices.
	choices map[choicePoint]int32
	// preemptions are the schedule's preemptions, in order.
	preemptions []preemption
	// result is the execution of the schedule (nil for the original).
	result *engine.Result
	// emptyTried is set once the candidate without preemptions has been run on this basis.
	emptyTried bool
}

func newBasis(steps []schedule.Step, pre []preemption) basis {
	b := basis{choices: make(map[choicePoint]int32), preemptions: pre}
	var counts []int
	seen := make(map[point]int) // choices so far per (g, c)
	run := 0
	for _, s := range steps {
		g := int(s.G)
		for g >= len(counts) {
			counts = append(counts, 0)
			b.order = append(b.order, nil)
		}
		if s.Kind == schedule.Choice {
			pt := point{engine.GID(g), counts[g]}
			b.choices[choicePoint{pt.g, pt.c, seen[pt]}] = s.Value
			seen[pt]++
			continue
		}
		counts[g]++
		b.order[g] = append(b.order[g], run)
		run++
	}
	return b
}

// next returns the index in the schedule of the (k+1)-th step of g, or -1.
func (b *basis) next(g engine.GID, k int) int {
	if int(g) < len(b.order) && k < len(b.order[g]) {
		return b.order[g][k]
	}
	return -1
}

// counter counts the steps each goroutine executed and records the preemptions of an
// execution, by the points where they happen.
type counter struct {
	counts      []int
	preemptions []preemption
}

func (c *counter) count(g engine.GID) int {
	if g < 0 || int(g) >= len(c.counts) {
		return 0
	}
	return c.counts[g]
}

// note records that the step of decision d runs g.
func (c *counter) note(d *engine.Decision, g engine.GID) {
	if g < 0 || !d.IsEnabled(g) {
		return
	}
	if d.LastEnabled && g != d.Last {
		c.preemptions = append(c.preemptions, preemption{at: point{d.Last, c.count(d.Last)}, target: g})
	}
	for int(g) >= len(c.counts) {
		c.counts = append(c.counts, 0)
	}
	c.counts[g]++
}

// recording wraps the replay of the original schedule to record its preemptions.
type recording struct {
	*strategy.Replay
	counter
}

// Pick implements engine.Strategy.
func (r *recording) Pick(d *engine.Decision) engine.GID {
	g := r.Replay.Pick(d)
	r.note(d, g)
	return g
}

// guided is the strategy of a candidate: the completion rule of the package documentation.
type guided struct {
	counter
	b       *basis
	keep    map[point]engine.GID
	choices map[point]int // choices so far per (g, c)
	begun   bool
	// dataSeed is the original execution's math/rand seed: a candidate draws the same values.
	dataSeed uint64
}

// DataSeed implements engine.DataSeeder.
func (g *guided) DataSeed() uint64 { return g.dataSeed }

func newGuided(b *basis, keep []int) *guided {
	g := &guided{b: b, keep: make(map[point]engine.GID, len(keep)), choices: make(map[point]int)}
	for _, i := range keep {
		p := b.preemptions[i]
		g.keep[p.at] = p.target
	}
	return g
}

// Name implements engine.Strategy.
func (g *guided) Name() string { return StrategyName }

// Params implements engine.Strategy.
func (g *guided) Params() map[string]string {
	return map[string]string{"keep": strconv.Itoa(len(g.keep))}
}

// Begin implements engine.Strategy: a candidate is one execution.
func (g *guided) Begin() bool {
	if g.begun {
		return false
	}
	g.begun = true
	return true
}

// Pick implements engine.Strategy.
func (g *guided) Pick(d *engine.Decision) engine.GID {
	pick := g.pick(d)
	g.note(d, pick)
	return pick
}

func (g *guided) pick(d *engine.Decision) engine.GID {
	if last := d.Last; last >= 0 && d.LastEnabled {
		target, ok := g.keep[point{last, g.count(last)}]
		if !ok {
			return last // rule 2
		}
		if target != last && d.IsEnabled(target) {
			return target // rule 1
		}
		if h := g.earliest(d, last); h != engine.NoGoroutine {
			return h
		}
		return last
	}
	return g.earliest(d, engine.NoGoroutine) // rule 3
}

// earliest returns the enabled goroutine other than exclude whose next step comes first in
// the schedule; when none has its next step there, the first in creation order after d.Last,
// wrapping around. It returns NoGoroutine when no goroutine qualifies.
func (g *guided) earliest(d *engine.Decision, exclude engine.GID) engine.GID {
	// Start the round-robin order after d.Last.
	en := d.Enabled()
	start := 0
	for start < len(en) && en[start] <= d.Last {
		start++
	}
	best, bestIdx := engine.NoGoroutine, -1
	for i := range en {
		h := en[(start+i)%len(en)]
		if h == exclude {
			continue
		}
		idx := g.b.next(h, g.count(h))
		switch {
		case best == engine.NoGoroutine:
			best, bestIdx = h, idx
		case idx >= 0 && (bestIdx < 0 || idx < bestIdx):
			best, bestIdx = h, idx
		}
	}
	return best
}

// Choose implements engine.Strategy: the schedule's value, else alternative 0.
func (g *guided) Choose(c *engine.Choice) int {
	pt := point{c.G, g.count(c.G)}
	k := g.choices[pt]
	g.choices[pt]++
	if v, ok := g.b.choices[choicePoint{pt.g, pt.c, k}]; ok && int(v) < c.N && v >= 0 {
		return int(v)
	}
	return 0
}

// End implements engine.Strategy.
func (g *guided) End(*engine.Result) {}
