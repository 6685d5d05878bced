package strategy

import (
	"slices"
	"strconv"

	"github.com/interleave-dev/interleave/engine"
)

// Greybox is coverage-guided schedule fuzzing: the way greybox fuzzers (AFL) reach deep
// states, by keeping the inputs that did something new and mutating them, applied to
// schedules as greybox concurrency testing does (RFF: Wolff, Shi, Wu and Roychoudhury,
// "Greybox Fuzzing for Concurrency Testing", ASPLOS 2024, which keeps the schedules that show
// new reads-from pairs). It is aimed at the bugs the other randomized techniques rarely reach
// because they need many preemptions, each at its place — misc/safestack's ABA needs about six
// before two goroutines own one item: a random scheduler must make all of them in one
// execution, while a fuzzer keeps each execution that gets one step further and builds on it.
//
// Coverage has two kinds of elements, each counted with how often it occurred in the
// execution, bucketed as AFL buckets hit counts (hitBucket). Pairs of operations on the same
// object: where the previous operation on the object was and where this one is, and whether
// the same goroutine made both — which store a load follows, which CAS follows which, how
// often a CAS loop went round; the abstraction of reads-from the engine has at its scheduling
// points (the objects of the pending operations, not their values). And states: the values of
// the atomic variables at each decision (engine.Decision.AtomicState), which tell apart the
// schedules that order the same operations but leave a lock-free structure in different
// states — the link that safestack's ABA restores to a stale value. With pairs alone, 21 of
// seeds 1–40 found safestack's bug within 10,000 executions; with states (and the focus on
// races below), 37, half of them within 3,754. An execution that covers an element not
// covered before, or that shows a data race not seen before, joins the corpus (a racy program
// shows its races in most executions, which would make every one join). States stop counting
// once greyboxMaxStates distinct ones were covered: a program that keeps values from its data
// nondeterminism (a rand value) or from earlier executions in its atomics shows new states
// in every execution, which would make every execution join the corpus.
//
// An execution that shows a data race first seen by this scheduler is the focus of the next
// greyboxFocus executions, all of them its mutants: a race is two accesses that the schedule
// can order either way, and what follows the other order (another goroutine's write between a
// goroutine's write and its read: safestack's failed assertion, once two goroutines own one
// item) is most likely found near the schedule that showed it. With racy points (the
// default) its accesses are scheduling points from that execution on, so a mutant can
// preempt between them.
//
// An execution is fresh or a mutant. A fresh one is a random walk (SCTBench §2.6). A mutant
// takes a schedule of the corpus — kept as its decisions, each with the position of the
// operation the picked goroutine was about to run — replays its decisions up to a cut drawn
// uniformly along it, picks another goroutine than the schedule did at the cut, and goes on as
// a random walk. One execution in greyboxFreshEvery is fresh, and every one is while the
// corpus is empty. The corpus entry a mutant starts from is drawn to favour the frontier, as
// fuzzers' seed schedules favour the inputs that exercise rare behaviour (AFLFast's, Böhme,
// Pham and Roychoudhury, CCS 2016; FairFuzz's rare branches, Lemieux and Sen, ASE 2018):
// greyboxTournament entries are drawn uniformly and the one whose rarest element (of those it
// covered first) the fewest executions have covered since wins, the newest on a tie. Random
// choices come from the execution's seed, as for the other randomized strategies (SCTBench
// §5); the corpus a mutant starts from depends on the executions before it, so a mutant is
// reproduced from its schedule file, which records its decisions, not from its seed alone
// (its Params say it is a mutant). A mutant's data choices and math/rand values up to the cut
// are its corpus entry's.
//
// When the scheduling points change (a race first seen while exploring makes its accesses
// points, Config.Points racy), the corpus is kept (Greybox is no engine.Restarter): a prefix
// is replayed by matching
// the operations the decisions picked, and a goroutine that stops at a point that did not
// exist when the entry was recorded goes on, as it did then — so the execution that showed the
// race is replayed with its racing accesses now points, and a mutant can preempt between them.
//
// In a portfolio greybox observes the other members' executions too (Observer): one that
// covers something new or shows a new race joins the corpus as greybox's own would, its
// decisions and data choices recorded and its math/rand values those of the member's seed, and
// its coverage counts toward the elements' rarity and toward Learning. One longer than
// greyboxObserveMax decisions is not observed.
//
// Under partitioning (-p, -shard) each part runs its own executions of the list of seeds, and
// its corpus is learnt from them (and, in a portfolio, the part's other members') alone.
type Greybox struct {
	seeds
	corpus []*greyboxEntry
	cover  map[greyboxPair]uint32 // the elements covered, each with how many executions covered it
	pos    map[engine.Pos]int32   // operation positions, interned
	// states is the number of distinct states covered, and maxStates how many count.
	states, maxStates int

	// The current execution.
	base     *greyboxEntry // the corpus entry a mutant replays, nil for a fresh execution
	cut      int           // the decision at which a mutant leaves base
	step     int           // decisions made
	replayed int           // decisions of base matched
	diverged bool          // the mutation is made, or base could not be followed
	dataSeed uint64
	picks    []greyboxPick           // the execution's decisions and data choices, kept if it
	choices  []int                   // joins the corpus
	last     map[uintptr]greyboxLast // the previous operation on each object
	// starting is the goroutine the previous decision started (its pending operation was
	// engine.OpStart), whose first operation, executed in the same step, is covered at the
	// next decision (Decision.Opened); NoGoroutine when there is none.
	starting engine.GID
	// The elements the execution covered, in the order first seen (hits 0), and how often
	// each occurred; index finds a pair's place in order by pairKey, stateIndex a state's by
	// its value (keys of one word hash faster than the struct).
	order      []greyboxPair
	counts     []int32
	index      map[uint64]int32
	stateIndex map[uint64]int32
	mutants    int // executions that were mutants

	races     map[[2]engine.Pos]bool // the races seen, by their accesses' positions
	focus     *greyboxEntry          // the entry that showed a new race
	focusLeft int                    // executions still to be mutants of focus

	// ended counts the executions ended; lastNew is that count when one last joined the
	// corpus.
	ended, lastNew int
	// observing is set while another member's execution is observed (Observer).
	observing bool
}

// greyboxFreshEvery is how often an execution is fresh once the corpus is not empty: fresh
// executions find starting points that no mutant of the corpus leads to (with one in a
// hundred fresh, 1 seed of 10 found safestack's bug within 10,000 executions, against 4).
const greyboxFreshEvery = 8

// greyboxMaxStates is how many distinct states of the atomic variables (each with its hit
// count's bucket) count as coverage; safestack shows under a thousand in 10,000 executions.
const greyboxMaxStates = 1 << 16

// greyboxTournament is how many corpus entries are drawn to choose a mutant's (the rarest
// wins). On safestack, seeds 1–80 with 10,000 executions each, against the bias to the newest
// entries used before (the later of two uniform draws): the median execution of the first
// failure went from 3,700 to 2,600, and 21 seeds found it within 1,667 executions instead of
// 7 (70 within 10,000 instead of 73). With 2 it was no better than that bias, with 16 no
// better than with 8.
const greyboxTournament = 8

// greyboxFocus is how many executions in a row are mutants of an execution that showed a new
// data race: on safestack, the executions from the first race to the failed assertion went
// from 640–2,500 to 12–600 for six of the seven seeds of 1–8 that found it (one took 2,100)
// with 128, and 32 was not as good.
const greyboxFocus = 128

// greyboxEntry is a schedule of the corpus.
type greyboxEntry struct {
	picks    []greyboxPick
	choices  []int
	dataSeed uint64
	points   map[int32]bool // the positions at which decisions were made
	firsts   []greyboxPair  // the coverage elements it covered first
}

// greyboxPick is one decision: the goroutine picked and the operation it was about to run.
type greyboxPick struct {
	g   engine.GID
	pos int32
}

// greyboxPair is an element of coverage: a pair of operations or (from and to -1) a state.
type greyboxPair struct {
	from, to int32  // the positions of the previous operation on the object and of this one
	same     bool   // by the same goroutine
	hits     uint8  // how often in the execution, hitBucket of the count (0 while counting)
	state    uint64 // the atomic variables' state (engine.Decision.AtomicState)
}

// pairKey packs a pair of operations (hits 0, from ≥ 0) into one word.
func (e greyboxPair) pairKey() uint64 {
	k := uint64(uint32(e.from))<<33 | uint64(uint32(e.to))<<1
	if e.same {
		k |= 1
	}
	return k
}

// greyboxLast is the previous operation on an object.
type greyboxLast struct {
	pos int32
	g   engine.GID
}

// hitBucket is AFL's bucketing of hit counts: 1, 2, 3, 4–7, 8–15, 16–31, 32–127, 128 and more.
func hitBucket(n int32) uint8 {
	switch {
	case n <= 3:
		return uint8(n)
	case n < 8:
		return 4
	case n < 16:
		return 5
	case n < 32:
		return 6
	case n < 128:
		return 7
	}
	return 8
}

// NewGreybox returns the greybox scheduler whose executions use the seeds generated from
// seed.
func NewGreybox(seed uint64) *Greybox {
	return &Greybox{
		seeds:      newSeeds(seed),
		cover:      map[greyboxPair]uint32{},
		pos:        map[engine.Pos]int32{},
		last:       map[uintptr]greyboxLast{},
		starting:   engine.NoGoroutine,
		index:      map[uint64]int32{},
		stateIndex: map[uint64]int32{},
		races:      map[[2]engine.Pos]bool{},

		maxStates: greyboxMaxStates,
	}
}

// Name implements engine.Strategy.
func (s *Greybox) Name() string { return "greybox" }

// Params implements engine.Strategy: the seed of the current execution, and for a mutant
// where it left which corpus entry (which depends on the executions before it).
func (s *Greybox) Params() map[string]string {
	p := map[string]string{"seed": strconv.FormatUint(s.cur, 10)}
	if s.base != nil {
		p["mutant"] = "decision " + strconv.Itoa(s.cut+1) + " of a corpus schedule of " + strconv.Itoa(len(s.base.picks))
	}
	return p
}

// ObservesAtomics implements engine.AtomicsObserver: the states of the atomic variables are
// coverage.
func (s *Greybox) ObservesAtomics() bool { return true }

// DataSeed implements engine.DataSeeder.
func (s *Greybox) DataSeed() uint64 { return s.dataSeed }

// Corpus returns the number of schedules in the corpus, and Mutants how many executions were
// mutants of them.
func (s *Greybox) Corpus() int  { return len(s.corpus) }
func (s *Greybox) Mutants() int { return s.mutants }

// Learning implements Learner: whether an execution joined the corpus recently — among the
// last greyboxLearnWindow, and among fewer than came before it (so that a small program
// whose few behaviours were covered in the first executions stops learning after as many
// more).
func (s *Greybox) Learning() bool {
	return s.ended-s.lastNew < min(greyboxLearnWindow, s.lastNew)
}

// warmUp implements warmer (Portfolio.SetExecutionsLeft): what is left of the learnerRamp
// executions (its own and those it observed) greybox needs before its turns grow.
func (s *Greybox) warmUp() int { return max(learnerRamp-s.ended, 0) }

// greyboxLearnWindow is the most executions in a row that add nothing to the corpus while
// Learning.
const greyboxLearnWindow = 100

// Begin implements engine.Strategy. It always returns true.
func (s *Greybox) Begin() bool {
	s.next()
	s.observing = false
	s.base, s.cut, s.step, s.replayed, s.diverged = nil, 0, 0, 0, false
	s.dataSeed = s.rng.Uint64() | 1
	if s.focusLeft > 0 {
		s.focusLeft--
		s.mutate(s.focus)
	} else if n := len(s.corpus); n > 0 && s.rng.IntN(greyboxFreshEvery) != 0 {
		s.mutate(s.choose(n))
	}
	s.resetExecution()
	return true
}

// resetExecution forgets the coverage and decisions of the last execution.
func (s *Greybox) resetExecution() {
	s.picks, s.choices = s.picks[:0], s.choices[:0]
	s.starting = engine.NoGoroutine
	clear(s.last)
	clear(s.index)
	clear(s.stateIndex)
	s.order, s.counts = s.order[:0], s.counts[:0]
}

// ObserveBegin implements Observer: another member of the portfolio begins an execution.
func (s *Greybox) ObserveBegin() {
	s.base = nil
	s.resetExecution()
	s.observing = true
}

// Observe implements Observer: another member picked g at d.
func (s *Greybox) Observe(d *engine.Decision, g engine.GID) {
	if !s.observing {
		return
	}
	if len(s.picks) == greyboxObserveMax {
		// Longer than any schedule greybox would build on: not worth its bookkeeping.
		s.observing = false
		return
	}
	s.record(d, g)
}

// greyboxObserveMax is the length at which an observed execution stops being observed, and
// does not join the corpus: a member that runs a spin loop to the step bound (a systematic
// search's round-robin without the fairness rule, as in SCTBench) makes executions of 100,000
// steps, whose bookkeeping would cost more than the rest of the exploration (splash2/lu: 3×
// the time per schedule) and whose mutants would replay them; and a test of thousands of
// goroutines would pay it at every step of every member. SCTBench's executions are a few
// hundred steps long.
const greyboxObserveMax = 2000

// ObserveChoice implements Observer: another member chose k.
func (s *Greybox) ObserveChoice(k int) {
	if s.observing {
		s.choices = append(s.choices, k)
	}
}

// ObserveEnd implements Observer: another member's execution, whose math/rand values came
// from dataSeed, ended as r; unless it was too long to observe, it joins the corpus as one of
// greybox's own would.
func (s *Greybox) ObserveEnd(r *engine.Result, dataSeed uint64) {
	if !s.observing {
		return
	}
	s.observing = false
	s.dataSeed = dataSeed
	s.End(r)
}

// choose draws the corpus entry a mutant of the first n starts from: the rarest of
// greyboxTournament drawn uniformly.
func (s *Greybox) choose(n int) *greyboxEntry {
	best, bestRarity := -1, uint32(0)
	for range greyboxTournament {
		i := s.rng.IntN(n)
		r := s.rarity(s.corpus[i])
		if best < 0 || r < bestRarity || r == bestRarity && i > best {
			best, bestRarity = i, r
		}
	}
	return s.corpus[best]
}

// rarity is how many executions covered the rarest element e covered first (the most there
// can be when it covered none first: it joined the corpus for a race).
func (s *Greybox) rarity(e *greyboxEntry) uint32 {
	r := ^uint32(0)
	for _, p := range e.firsts {
		r = min(r, s.cover[p])
	}
	return r
}

// mutate makes the execution a mutant of e, leaving it at a cut drawn uniformly along it.
func (s *Greybox) mutate(e *greyboxEntry) {
	s.base = e
	s.cut = s.rng.IntN(len(e.picks) + 1)
	s.dataSeed = e.dataSeed
	s.mutants++
}

// Pick implements engine.Strategy.
func (s *Greybox) Pick(d *engine.Decision) engine.GID {
	g := s.pick(d)
	s.record(d, g)
	return g
}

// record counts the coverage of decision d, at which g was picked, and keeps the decision.
func (s *Greybox) record(d *engine.Decision, g engine.GID) {
	if s.states < s.maxStates {
		s.count(greyboxPair{from: -1, to: -1, state: d.AtomicState()})
	}
	if s.starting >= 0 {
		// The pair of the operation the previous decision executed, a start's.
		if op := d.Opened(); op.Obj != 0 {
			s.coverPair(s.starting, op.Obj, s.intern(op.Pos))
		}
		s.starting = engine.NoGoroutine
	}
	op := d.Pending(g)
	pos := s.intern(op.Pos)
	s.picks = append(s.picks, greyboxPick{g, pos})
	if op.Kind == engine.OpStart {
		s.starting = g
	} else if op.Obj != 0 {
		s.coverPair(g, op.Obj, pos)
	}
}

// coverPair counts the pair that g's operation at pos on obj makes with the previous operation
// on obj.
func (s *Greybox) coverPair(g engine.GID, obj uintptr, pos int32) {
	if prev, ok := s.last[obj]; ok {
		s.count(greyboxPair{from: prev.pos, to: pos, same: prev.g == g})
	}
	s.last[obj] = greyboxLast{pos, g}
}

// count counts an occurrence of a coverage element in the execution.
func (s *Greybox) count(e greyboxPair) {
	index, key := s.index, e.pairKey()
	if e.from < 0 {
		index, key = s.stateIndex, e.state
	}
	i, ok := index[key]
	if !ok {
		i = int32(len(s.order))
		index[key] = i
		s.order = append(s.order, e)
		s.counts = append(s.counts, 0)
	}
	s.counts[i]++
}

// pick follows base up to the cut, makes the mutation there, and walks at random after it.
func (s *Greybox) pick(d *engine.Decision) engine.GID {
	step := s.step
	s.step++
	if s.base == nil || s.diverged {
		return d.EnabledAt(s.rng.IntN(d.NumEnabled()))
	}
	want, ok := s.follow(d)
	if !ok {
		s.diverged = true
		return d.EnabledAt(s.rng.IntN(d.NumEnabled()))
	}
	if step < s.cut {
		return want
	}
	s.diverged = true
	if i := slices.Index(d.Enabled(), want); i >= 0 && d.NumEnabled() > 1 {
		k := s.rng.IntN(d.NumEnabled() - 1)
		if k >= i {
			k++
		}
		return d.EnabledAt(k)
	}
	return d.EnabledAt(s.rng.IntN(d.NumEnabled()))
}

// follow returns the decision that replaying base makes next, and false once the execution
// has left base.
func (s *Greybox) follow(d *engine.Decision) (engine.GID, bool) {
	// A point base did not have: the goroutine that stopped there goes on, as it did then —
	// if it may: LastEnabled says only that it can run, and the fairness rule may offer
	// just a starved goroutine at this decision (Enabled is then that one alone).
	if d.LastEnabled && !s.base.points[s.intern(d.Pending(d.Last).Pos)] && d.IsEnabled(d.Last) {
		return d.Last, true
	}
	if s.replayed < len(s.base.picks) {
		want := s.base.picks[s.replayed]
		if d.IsEnabled(want.g) && s.intern(d.Pending(want.g).Pos) == want.pos {
			s.replayed++
			return want.g, true
		}
	}
	return 0, false
}

// Choose implements engine.Strategy: until the mutation, a mutant makes its entry's choices.
func (s *Greybox) Choose(c *engine.Choice) int {
	var k int
	if i := len(s.choices); s.base != nil && !s.diverged && i < len(s.base.choices) && s.base.choices[i] < c.N {
		k = s.base.choices[i]
	} else {
		k = s.rng.IntN(c.N)
	}
	s.choices = append(s.choices, k)
	return k
}

// End implements engine.Strategy: an execution that covered a new element, or showed a data
// race not seen before, joins the corpus.
func (s *Greybox) End(r *engine.Result) {
	var firsts []greyboxPair
	for i, pair := range s.order { // in the order first seen: no choice may depend on a map's order
		pair.hits = hitBucket(s.counts[i])
		n := s.cover[pair]
		if n == 0 {
			firsts = append(firsts, pair)
			if pair.from < 0 {
				s.states++
			}
		}
		s.cover[pair] = n + 1
	}
	newRace := false
	for _, race := range r.Races {
		if k := [2]engine.Pos{race.A.Pos, race.B.Pos}; !s.races[k] {
			s.races[k], newRace = true, true
		}
	}
	s.ended++
	if len(firsts) == 0 && !newRace {
		return
	}
	s.lastNew = s.ended
	e := &greyboxEntry{
		picks:    slices.Clone(s.picks),
		choices:  slices.Clone(s.choices),
		dataSeed: s.dataSeed,
		points:   make(map[int32]bool),
		firsts:   firsts,
	}
	for _, p := range e.picks {
		e.points[p.pos] = true
	}
	s.corpus = append(s.corpus, e)
	if newRace {
		s.focus, s.focusLeft = e, greyboxFocus
	}
}

func (s *Greybox) intern(p engine.Pos) int32 {
	id, ok := s.pos[p]
	if !ok {
		id = int32(len(s.pos))
		s.pos[p] = id
	}
	return id
}
