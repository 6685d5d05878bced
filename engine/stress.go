package engine

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Stress mode: the code under test runs for real, on all cores, as in the stochastic stress
// framework of Gunal & Patil (seed 002). No execution is active, so every entry point of this
// package performs the real operation (see current); in stress mode each entry point is also
// a place where the runtime randomizations of §3.6 and §4.6 act, and the goroutines a stress
// test starts are tracked, so that the driver (package stress) can report leaks, dump a hang
// and pick goroutines to suspend:
//
//   - the goroutine randomizer (§4.6, Appendix I) holds one goroutine of the running tests,
//     chosen uniformly, at its next instrumented operation for a drawn duration; its periods
//     run on the operations (SetStressHolds), and HoldRandom holds one at once;
//   - Cuzz-style delays: at each instrumented operation, with a small probability, the
//     goroutine sleeps for a duration drawn uniformly between two bounds (SetStressDelays).
//
// When neither acts, an entry point costs three atomic loads more than the real operation
// (active, stressing, the held goroutine), and while either is on one draw from the runtime's
// per-thread generator (BenchmarkStressHook: 13.7 ns for a Lock/Unlock pair against 12.5
// natively; 21 ns with the randomizer's clock on).
// That coin is deliberately not drawn from the run's seed: the interleaving of real goroutines
// on real cores cannot be replayed, so a seeded coin would buy no reproducibility and cost a
// shared atomic counter at every operation. Everything the driver decides — inputs, which
// tests run together, GOMAXPROCS, the randomizer's periods, picks and durations, the delays'
// probability — comes from the run's seed.

// stressing is the stress-mode state while stress mode is on.
var stressing atomic.Pointer[stressState]

// StressHooks is what the stress driver hears from the goroutines of its tests.
type StressHooks struct {
	// Panic is called on a goroutine of a stress test that panicked, with the panic value and
	// the goroutine's stack; the goroutine's deferred calls have run. It should end the
	// process: Go would.
	Panic func(o *StressOwner, value any, stack []byte)
}

type stressState struct {
	hooks StressHooks

	mu   sync.Mutex
	byGP map[uintptr]*stressG
	all  []*stressG // for uniform picks

	// held is the goroutine (its g pointer) the randomizer holds at its next operation, until
	// heldUntil (Unix nanoseconds); 0 when none.
	held      atomic.Uintptr
	heldUntil atomic.Int64

	// At each instrumented operation one draw r from the runtime's per-thread generator is
	// compared with opThreshold = sample + hold + delay thresholds (each a probability scaled
	// to 2^64): r below the first counts the operation in sampled (the randomizer's estimate
	// of the operation rate), in the second starts a hold (holdRate), in the third delays.
	// thresholdMu serializes the setters, so that opThreshold is the sum of the others.
	thresholdMu sync.Mutex
	opThreshold atomic.Uint64
	sampleTh    atomic.Uint64
	holdTh      atomic.Uint64
	delayTh     atomic.Uint64
	sampled     atomic.Int64
	holdMin     atomic.Int64
	holdMax     atomic.Int64
	pick        *rand.Rand // under mu: the randomizer's picks and durations, from the run's seed
	delayMin    atomic.Int64
	delayMax    atomic.Int64
	delays      atomic.Int64
	holds       atomic.Int64
}

// sampleShift sets the sampling probability of the operation rate, 2^-sampleShift: one
// atomic add in 4,096 operations.
const sampleShift = 12

// stressG is a goroutine of a stress test.
type stressG struct {
	owner   *StressOwner
	gp      uintptr
	goid    int64
	created Pos
	index   int // in stressState.all
	test    *T  // the test whose goroutine it is (CurrentT)
}

// StressOwner is one iteration of one stress test: its body's goroutine and every goroutine
// started from it, transitively.
type StressOwner struct {
	name string
	mu   sync.Mutex
	live map[*stressG]struct{}
}

// NewStressOwner returns the owner of an iteration of the test called name.
func NewStressOwner(name string) *StressOwner {
	return &StressOwner{name: name, live: make(map[*stressG]struct{})}
}

// Name is the test's name.
func (o *StressOwner) Name() string { return o.name }

// StressGoroutine describes a goroutine of a stress test that is still alive.
type StressGoroutine struct {
	ID      int64 // the runtime's goroutine id, as in stack dumps; 0 until it has started
	Created Pos   // where it was started
}

// Live returns the goroutines of o still alive, oldest first by id.
func (o *StressOwner) Live() []StressGoroutine {
	o.mu.Lock()
	defer o.mu.Unlock()
	gs := make([]StressGoroutine, 0, len(o.live))
	for g := range o.live {
		gs = append(gs, StressGoroutine{ID: g.goid, Created: g.created})
	}
	for i := 1; i < len(gs); i++ {
		for j := i; j > 0 && gs[j].ID < gs[j-1].ID; j-- {
			gs[j], gs[j-1] = gs[j-1], gs[j]
		}
	}
	return gs
}

// LiveCount is the number of goroutines of o still alive.
func (o *StressOwner) LiveCount() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.live)
}

// Forget stops counting o's live goroutines (once they are reported as leaked).
func (o *StressOwner) Forget() {
	o.mu.Lock()
	defer o.mu.Unlock()
	clear(o.live)
}

// StartStress turns stress mode on. It panics if an execution is active or stress mode is
// already on.
func StartStress(h StressHooks) {
	if active.Load() != nil {
		panic("engine: StartStress during an execution")
	}
	if !stressing.CompareAndSwap(nil, &stressState{hooks: h, byGP: make(map[uintptr]*stressG)}) {
		panic("engine: StartStress: stress mode is already on")
	}
}

// StopStress turns stress mode off; goroutines of stress tests still alive go on untracked.
func StopStress() { stressing.Store(nil) }

// SetStressDelays sets the Cuzz-style delays: at each instrumented operation of a stress
// test's goroutine, with probability p, a sleep uniformly drawn from [min, max] (a zero max
// yields instead). p = 0 turns them off.
func SetStressDelays(p float64, min, max time.Duration) {
	s := stressing.Load()
	if s == nil {
		return
	}
	s.delayMin.Store(int64(min))
	s.delayMax.Store(int64(max))
	s.thresholdMu.Lock()
	s.delayTh.Store(scaled(p))
	s.setOpThreshold()
	s.thresholdMu.Unlock()
}

// scaled is probability p scaled to 2^64, saturated.
func scaled(p float64) uint64 {
	switch {
	case p <= 0:
		return 0
	case p >= 1:
		return ^uint64(0)
	}
	return uint64(p * (1 << 63) * 2)
}

// setOpThreshold sums the thresholds, saturating; with thresholdMu held.
func (s *stressState) setOpThreshold() {
	t := s.sampleTh.Load()
	for _, x := range []uint64{s.holdTh.Load(), s.delayTh.Load()} {
		if t+x < t {
			t = ^uint64(0)
		} else {
			t += x
		}
	}
	s.opThreshold.Store(t)
}

// SetStressHolds turns the goroutine randomizer's operation clock on (p > 0) or off: at each
// instrumented operation, with probability p, one goroutine of the stress tests, picked
// uniformly with the seeded source, is held at its next instrumented operation (this one,
// when it is the one picked) for a duration uniform in [min, max]. While on, one operation in
// 4,096 is also counted (StressOperations), so that the randomizer can turn its period, a
// time, into p.
//
// Why operations and not the wall clock: a goroutine woken by a timer needs a free processor
// to run, and while the tests' goroutines keep every processor busy Go's scheduler runs it
// only when one of them blocks or ends — for short iterations, between iterations, when no
// test goroutine is in the middle of anything (measured on Appendix I's program: 45 % of
// timer-driven picks found no goroutine, and 5 of 150 holds landed before the bug's first
// instruction). An operation is where a test goroutine is by definition.
func SetStressHolds(p float64, min, max time.Duration, seed uint64) {
	s := stressing.Load()
	if s == nil {
		return
	}
	s.holdMin.Store(int64(min))
	s.holdMax.Store(int64(max))
	s.mu.Lock()
	if s.pick == nil {
		s.pick = rand.New(rand.NewPCG(seed, 0x686f6c6473)) // "holds"
	}
	s.mu.Unlock()
	s.thresholdMu.Lock()
	s.holdTh.Store(scaled(p))
	s.sampleTh.Store(0)
	if p > 0 {
		s.sampleTh.Store(1 << (64 - sampleShift))
	}
	s.setOpThreshold()
	s.thresholdMu.Unlock()
}

// StressOperations estimates how many instrumented operations stress mode has seen while the
// randomizer's clock was on.
func StressOperations() int64 {
	if s := stressing.Load(); s != nil {
		return s.sampled.Load() << sampleShift
	}
	return 0
}

// StressCounts returns how many delays and holds stress mode has applied.
func StressCounts() (delays, holds int64) {
	if s := stressing.Load(); s != nil {
		return s.delays.Load(), s.holds.Load()
	}
	return 0, 0
}

// Go runs f as the root goroutine of o (the test body's), tracked as its goroutines are.
// Outside stress mode it is an ordinary go statement.
func (o *StressOwner) Go(f func()) {
	s := stressing.Load()
	if s == nil {
		go f()
		return
	}
	s.spawn(o, f, "")
}

// HoldRandom picks one live goroutine of the stress tests uniformly with r and holds it at its
// next instrumented operation for d (§4.6: the thread randomizer suspends a test thread). It
// reports whether there was a goroutine to hold; a hold not yet served is replaced.
func HoldRandom(r *rand.Rand, d time.Duration) bool {
	s := stressing.Load()
	if s == nil {
		return false
	}
	s.mu.Lock()
	if len(s.all) == 0 {
		s.mu.Unlock()
		return false
	}
	g := s.all[r.IntN(len(s.all))]
	s.mu.Unlock()
	s.hold(g, d)
	return true
}

// hold makes g the goroutine held at its next operation, for d from now; a hold not yet
// served is replaced.
func (s *stressState) hold(g *stressG, d time.Duration) {
	s.heldUntil.Store(time.Now().Add(d).UnixNano())
	s.held.Store(g.gp)
}

// serve holds the calling goroutine, gp, which is the one held, until the hold's end.
func (s *stressState) serve(gp uintptr) {
	if s.held.CompareAndSwap(gp, 0) {
		s.holds.Add(1)
		if d := time.Until(time.Unix(0, s.heldUntil.Load())); d > 0 {
			time.Sleep(d)
		}
	}
}

// stressPoint is the stress-mode work at an entry point of a goroutine no execution controls.
func (s *stressState) point() {
	if gp := s.held.Load(); gp != 0 && gp == getg() {
		s.serve(gp)
	}
	if th := s.opThreshold.Load(); th != 0 {
		if r := rand.Uint64(); r < th {
			s.randomOp(r)
		}
	}
}

// randomOp is what draw r (below opThreshold) does at an operation: count it, start a hold,
// or delay.
func (s *stressState) randomOp(r uint64) {
	sample, hold := s.sampleTh.Load(), s.holdTh.Load()
	switch {
	case r < sample:
		s.sampled.Add(1)
	case r-sample < hold:
		s.holdOne()
	default:
		s.delay()
	}
}

// holdOne picks a goroutine of the stress tests uniformly and holds it at its next operation
// — at once, when it is the caller.
func (s *stressState) holdOne() {
	s.mu.Lock()
	if len(s.all) == 0 || s.pick == nil {
		s.mu.Unlock()
		return
	}
	g := s.all[s.pick.IntN(len(s.all))]
	d := s.holdMin.Load()
	if hi := s.holdMax.Load(); hi > d {
		d += s.pick.Int64N(hi - d + 1)
	}
	s.mu.Unlock()
	s.hold(g, time.Duration(d))
	if g.gp == getg() {
		s.serve(g.gp)
	}
}

// delay is a Cuzz-style delay: a sleep uniform in [delayMin, delayMax], or a yield.
func (s *stressState) delay() {
	s.delays.Add(1)
	lo, hi := s.delayMin.Load(), s.delayMax.Load()
	if hi <= 0 {
		runtime.Gosched()
		return
	}
	d := lo
	if hi > lo {
		d += rand.Int64N(hi - lo + 1)
	}
	time.Sleep(time.Duration(d))
}

// spawn starts f on a new goroutine of owner o (the caller's owner, and its test, when o is
// nil; an untracked goroutine when the caller belongs to no stress test).
func (s *stressState) spawn(o *StressOwner, f func(), pos Pos) {
	var test *T
	if o == nil {
		s.mu.Lock()
		parent := s.byGP[getg()]
		s.mu.Unlock()
		if parent == nil || getg() == 0 {
			go f()
			return
		}
		o, test = parent.owner, parent.test
	}
	g := &stressG{owner: o, created: pos, test: test}
	o.mu.Lock()
	o.live[g] = struct{}{}
	o.mu.Unlock()
	go s.run(g, f)
}

func (s *stressState) run(g *stressG, f func()) {
	id := goid()
	g.owner.mu.Lock() // Live reads the id
	g.gp, g.goid = getg(), id
	g.owner.mu.Unlock()
	s.mu.Lock()
	if g.gp != 0 {
		s.byGP[g.gp] = g
	}
	g.index = len(s.all)
	s.all = append(s.all, g)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.byGP[g.gp] == g {
			delete(s.byGP, g.gp)
		}
		last := s.all[len(s.all)-1]
		s.all[g.index] = last
		last.index = g.index
		s.all = s.all[:len(s.all)-1]
		s.mu.Unlock()
		s.held.CompareAndSwap(g.gp, 0)
		g.owner.mu.Lock()
		delete(g.owner.live, g)
		g.owner.mu.Unlock()
	}()
	defer func() {
		// recover returns nil for runtime.Goexit (t.FailNow), which goes on.
		if v := recover(); v != nil && s.hooks.Panic != nil {
			s.hooks.Panic(g.owner, v, panicStack(debug.Stack()))
			panic(v) // the hook did not end the process: crash as Go would
		}
	}()
	f()
}

// goid is the calling goroutine's id, read from its stack header ("goroutine 7 [running]:").
func goid() int64 {
	var buf [64]byte
	id, _ := strconv.ParseInt(goroutineID(buf[:runtime.Stack(buf[:], false)]), 10, 64)
	return id
}

// panicStack trims a goroutine's stack taken in a deferred recover to start at the frame
// that panicked: it drops the header's frames up to and including the runtime's panic.
func panicStack(stack []byte) []byte {
	header, rest, ok := bytes.Cut(stack, []byte("\n"))
	if !ok {
		return stack
	}
	if i := bytes.Index(rest, []byte("\npanic(")); i >= 0 {
		after := rest[i+1:]
		// Skip the panic( line and its file line.
		for range 2 {
			if j := bytes.IndexByte(after, '\n'); j >= 0 {
				after = after[j+1:]
			}
		}
		return append(append(header, '\n'), after...)
	}
	return stack
}
