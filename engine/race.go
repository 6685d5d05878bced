package engine

import (
	"fmt"
	"unsafe"
)

// The data-race detector.
//
// Every controlled goroutine carries a vector clock, and every synchronization the engine
// performs creates the happens-before edges the Go memory model (go.dev/ref/mem) defines:
//
//   - a go statement happens before the new goroutine starts;
//   - a send happens before the corresponding receive completes; for a channel of capacity C,
//     the k-th receive happens before the (k+C)-th send completes (for an unbuffered channel,
//     the receive happens before the send completes); a close happens before a receive that
//     returns because the channel is closed;
//   - the n-th Unlock of a Mutex or RWMutex happens before the (n+1)-th Lock returns, an
//     RUnlock before the next Lock, an Unlock before the next RLock;
//   - Done (Add with a negative delta) happens before the Wait it releases returns;
//   - the return of the function of once.Do(f) happens before any once.Do returns;
//   - atomic operations are sequentially consistent: an atomic write happens before an atomic
//     read that observes it (here: before every later atomic operation on the same address);
//   - starting a timer happens before its channel delivers and before its function runs.
//
// Operations on objects the engine does not control (a channel made by uninstrumented code,
// as context.WithCancel's Done channel) complete at an arbitrary point of the engine's serial
// execution: the goroutine that completes one acquires everything that executed before it.
// That may hide a race, never report one that does not exist.
//
// Reads and writes of instrumented memory are checked as FastTrack does (Flanagan and Freund,
// PLDI 2009): the last write of each address is an epoch (goroutine, clock), reads are one
// epoch while they are totally ordered and a set of each goroutine's last read once they are
// not (of the reads at one position, those concurrent with the last there). Two
// accesses to the same address race when at least one is a write and neither happens before
// the other. The address is the access's (a map counts as one location, as Go's race
// detector counts it); the shadow (raceshadow.go) makes sure that an address's history is about the
// object at that address now, not a dead one whose memory was reused.

// Clock returns the vector clock of goroutine g at this decision (nil when the race detector
// is off): element i is how much of goroutine i's execution happens before g's next step.
func (d *Decision) Clock(g GID) []uint32 {
	e := d.e
	if e.race == nil || g < 0 || int(g) >= len(e.gs) {
		return nil
	}
	return e.gs[g].vc.flat()
}

// access is one read or write of instrumented memory.
type access struct {
	g     GID
	clock uint32 // g's own clock when it accessed
	write bool
	// atomic is set for an atomic operation's access: two atomic accesses never race (they
	// are ordered by the atomics' own edges), an atomic and a plain one do when unordered,
	// as Go's race detector reports.
	atomic bool
	pos    Pos
	seq    int32 // the access's number in the execution, to find it again when replaying
}

// happensBefore reports whether a happens before the current step of a goroutine with clock vc.
func (a *access) happensBefore(vc *vclock) bool { return a.clock <= vc.get(a.g) }

// word is the history of one address.
type word struct {
	write access // valid when write.pos != "" or write.clock != 0
	read  access // the last read, while reads are totally ordered
	reads []access
	valid uint8 // bit 0: write, bit 1: read
}

// raceDetector is the detector's per-execution state.
type raceDetector struct {
	shadow  raceShadow // address -> history (raceshadow.go)
	atomics map[uintptr]*vclock
	seq     int32
	found   []raceFound
	pairs   map[racePair]int
	// capture, when replaying for stacks, maps access numbers to where to store the stack.
	capture map[int32][]*[]Frame
	// chunks makes the clocks' chunks of an execution (vclock.go).
	chunks chunkArena
}

type racePair struct{ a, b Pos }

// raceFound is a race seen in the execution: a (earlier) and b (the access that saw it).
type raceFound struct {
	a, b access
}

func newRaceDetector() *raceDetector {
	return &raceDetector{shadow: raceShadow{weak: shadowStartWeak.Load()}, atomics: make(map[uintptr]*vclock), pairs: make(map[racePair]int)}
}

func (d *raceDetector) reset() {
	d.shadow.reset()
	clear(d.atomics)
	d.seq = 0
	d.found = d.found[:0]
	clear(d.pairs)
	d.capture = nil
	d.chunks.reset()
}

// access checks an access by g to addr and records it.
func (e *Exec) raceAccess(g *goroutine, addr unsafe.Pointer, write, atomic bool, pos Pos) {
	if e.aborting {
		// The execution is over: what deferred code does while it is torn down (reap) is
		// not part of it, and finds no race.
		return
	}
	d := e.race
	d.seq++
	if d.capture != nil {
		if ps, ok := d.capture[d.seq]; ok {
			stack := callers(3)
			for _, p := range ps {
				*p = stack
			}
		}
	}
	if addr == nil {
		return // a nil map or pointer: the access panics or reads nothing shared
	}
	var w *word
	if i, ok := d.shadow.index.get(uintptr(addr)); ok && !d.shadow.weak {
		w = &d.shadow.words[i] // the common case, inline
	} else {
		w = d.shadow.word(addr, i, ok)
	}
	vc := &g.vc
	cur := access{g: g.id, clock: vc.get(g.id), write: write, atomic: atomic, pos: pos, seq: d.seq}
	if w.valid&1 != 0 && w.write.g != g.id && !(atomic && w.write.atomic) && !w.write.happensBefore(vc) {
		e.raceFound(g, w.write, cur)
	}
	if write {
		if len(w.reads) > 0 {
			for _, r := range w.reads {
				if r.g != g.id && !(atomic && r.atomic) && !r.happensBefore(vc) {
					e.raceFound(g, r, cur)
				}
			}
		} else if w.valid&2 != 0 && w.read.g != g.id && !(atomic && w.read.atomic) && !w.read.happensBefore(vc) {
			e.raceFound(g, w.read, cur)
		}
		w.write = cur
		w.valid = 1
		w.reads = w.reads[:0]
		return
	}
	switch {
	case len(w.reads) > 0:
		// One read per goroutine, its last (and its last plain one, when an atomic one
		// followed); and of the reads at this one's position, only those concurrent with it:
		// one that happens before it is covered by it — a write that races with it races with
		// this one too, at the same pair of positions (an atomic read covers only atomic
		// ones, for an atomic write races with plain reads only). A thousand goroutines that
		// read a variable at one line, ten at a time, keep the set ten long, where it grew to
		// a thousand, a pass over it at each read (a worker pool's captured channel, 8% of
		// its time). Reads elsewhere are kept: the races reported, and the racy points they
		// make, are those of a set of every goroutine's last read.
		kept, mine := w.reads[:0], false
		for _, r := range w.reads {
			if !atomic || r.atomic { // this read covers r if it comes after it
				switch {
				case r.g == g.id && !mine:
					r, mine = cur, true // in r's place
				case r.g == g.id, r.pos == cur.pos && r.happensBefore(vc):
					continue
				}
			}
			kept = append(kept, r)
		}
		if !mine {
			kept = append(kept, cur)
		}
		w.reads = kept
	case w.valid&2 == 0 || w.read.happensBefore(vc) && (!atomic || w.read.atomic):
		// The first read, or one after the last (its goroutine's own among them).
		w.read = cur
		w.valid |= 2
	default:
		// Concurrent reads.
		w.reads = append(w.reads, w.read, cur)
		w.valid &^= 2
	}
}

// raceFound records the race between a and b (b by g, now). With RacesFail the execution
// fails at once.
func (e *Exec) raceFound(g *goroutine, a, b access) {
	d := e.race
	key := racePair{a.pos, b.pos}
	if key.b < key.a {
		key.a, key.b = key.b, key.a
	}
	if _, ok := d.pairs[key]; ok {
		return
	}
	d.pairs[key] = len(d.found)
	d.found = append(d.found, raceFound{a, b})
	if e.raceFail && e.result.Bug == nil {
		bug := &Bug{Kind: Race, Message: describeRace(a, b, e), Pos: b.pos, stack: callers(3)}
		e.fail(bug, g)
		e.park(g)
	}
}

func accessKind(write bool) string {
	if write {
		return "write"
	}
	return "read"
}

func describeRace(a, b access, e *Exec) string {
	return fmt.Sprintf("data race: %s at %s by %v, %s at %s by %v (%s), not ordered by any synchronization",
		accessKind(b.write), b.pos, b.g, accessKind(a.write), a.pos, a.g, e.createdAt(a.g))
}

func (e *Exec) createdAt(g GID) string {
	if g == 0 {
		return "the test body"
	}
	if int(g) < len(e.gs) {
		return "started at " + e.gs[g].created
	}
	return "unknown"
}

// Synchronization edges. Each is a no-op when the detector is off.

// raceAcquire makes everything released into c happen before g's next step.
func (e *Exec) raceAcquire(g *goroutine, c vclock) {
	if e.race != nil && g != nil {
		g.vc.join(c)
	}
}

// raceRelease adds g's history to c, and starts a new epoch of g.
func (e *Exec) raceRelease(g *goroutine, c *vclock) {
	if e.race != nil && g != nil {
		c.join(g.vc)
		g.vc.set(g.id, g.vc.get(g.id)+1)
	}
}

// raceSync is an acquire and a release on c: the object orders every operation on it.
func (e *Exec) raceSync(g *goroutine, c *vclock) {
	if e.race != nil && g != nil {
		g.vc.join(*c)
		c.join(g.vc)
		g.vc.set(g.id, g.vc.get(g.id)+1)
	}
}

// raceAcquireAll makes everything executed so far happen before g's next step: g completed an
// operation whose partner the engine cannot see.
func (e *Exec) raceAcquireAll(g *goroutine) {
	if e.race == nil || g == nil {
		return
	}
	for _, o := range e.gs {
		g.vc.join(o.vc)
	}
}

// raceAll returns a clock of everything executed so far: what the engine itself releases
// (a timer firing, a deadline canceling a context) carries it.
func (e *Exec) raceAll() vclock {
	if e.race == nil {
		return vclock{}
	}
	var c vclock
	for _, o := range e.gs {
		c.join(o.vc)
	}
	return c
}

// raceGo gives the new goroutine child what happened before its go statement in parent (nil:
// started by the engine, as an AfterFunc callback).
func (e *Exec) raceGo(parent, child *goroutine) {
	if e.race == nil {
		return
	}
	child.vc.release()
	child.vc.adopt(child.id, &e.race.chunks)
	if parent != nil {
		child.vc.join(parent.vc)
		parent.vc.set(parent.id, parent.vc.get(parent.id)+1)
	} else {
		e.raceAcquireAll(child)
	}
	child.vc.set(child.id, 1)
}

// raceAtomic is the edge of an atomic operation on addr.
func (e *Exec) raceAtomic(g *goroutine, kind OpKind, addr uintptr) {
	if e.race == nil {
		return
	}
	c := e.race.atomics[addr]
	if c == nil {
		c = new(vclock)
		e.race.atomics[addr] = c
	}
	switch kind {
	case OpAtomicLoad:
		e.raceAcquire(g, *c)
	case OpAtomicStore:
		e.raceRelease(g, c)
	default:
		e.raceSync(g, c)
	}
}

// chanClocks is the detector's part of a channel's shadow.
type chanClocks struct {
	slots        []vclock // for a buffered channel: slot k mod cap orders the k-th send and receive
	sends, recvs int
	closed       vclock
}

// slot returns the clock of the operation counted by n (the sends or the receives), and
// counts it.
func (k *chanClocks) slot(n *int, capacity int) *vclock {
	if k.slots == nil {
		k.slots = make([]vclock, capacity)
	}
	s := &k.slots[*n%capacity]
	*n++
	return s
}

// raceSend is the edge of a send on the buffered channel c by g (nil: by the engine, whose
// clock is vc): the send is the channel's next; it orders itself after the receive cap sends
// earlier, and before the receive of the same number (the Go memory model).
func (e *Exec) raceSend(c *hchan, g *goroutine, vc vclock) {
	if e.race == nil || c.cap == 0 {
		return
	}
	slot := c.clocks.slot(&c.clocks.sends, c.cap)
	if g != nil {
		e.raceSync(g, slot)
	} else {
		slot.join(vc)
	}
}

// raceRecv is the edge of a receive by g on the buffered channel c of a value that was sent
// (not of a closed channel's zero value).
func (e *Exec) raceRecv(c *hchan, g *goroutine) {
	if e.race == nil || c.cap == 0 {
		return
	}
	e.raceSync(g, c.clocks.slot(&c.clocks.recvs, c.cap))
}

// raceTransfer is the edge of a value handed from sender (nil: the engine, with clock vc)
// directly to a waiting receiver. On an unbuffered channel each side's operation completes
// after the other's started; on a buffered one it is a send and a receive of the same number.
func (e *Exec) raceTransfer(c *hchan, sender, receiver *goroutine, vc vclock) {
	if e.race == nil {
		return
	}
	if c.cap > 0 {
		e.raceSend(c, sender, vc)
		e.raceRecv(c, receiver)
		return
	}
	if sender == nil {
		receiver.vc.join(vc)
		return
	}
	// Both end with everything either had: the sender's clock joined with the receiver's is
	// that, and the receiver's joined with it too.
	sender.vc.join(receiver.vc)
	receiver.vc.join(sender.vc)
	sender.vc.set(sender.id, sender.vc.get(sender.id)+1)
	receiver.vc.set(receiver.id, receiver.vc.get(receiver.id)+1)
}

// raceDrained accounts for n buffered values the engine removed (a timer's stale tick).
func (e *Exec) raceDrained(c *hchan, n int) {
	if e.race != nil {
		c.clocks.recvs += n
	}
}

// raceClose is the edge of closing c by g (nil: by the engine).
func (e *Exec) raceClose(c *hchan, g *goroutine) {
	if e.race == nil {
		return
	}
	if g != nil {
		e.raceRelease(g, &c.clocks.closed)
	} else {
		c.clocks.closed.join(e.raceAll())
	}
}

// raceRecvClosed is the edge of a receive that returned because c is closed.
func (e *Exec) raceRecvClosed(c *hchan, g *goroutine) {
	e.raceAcquire(g, c.clocks.closed)
}

// Points says which reads and writes of shared memory are scheduling points. Synchronization
// operations always are.
type Points uint8

const (
	// PointsAll makes every instrumented access a scheduling point.
	PointsAll Points = iota
	// PointsSync makes none of them one: only synchronization is interleaved.
	PointsSync
	// PointsRacy makes the accesses at Config.RacyPoints scheduling points: the accesses
	// found racy by a detection phase, as SCTBench does (seed 004, §5 "Data Race Detection
	// Phase").
	PointsRacy
)

var pointsNames = [...]string{PointsAll: "all", PointsSync: "sync", PointsRacy: "racy"}

func (p Points) String() string {
	if int(p) < len(pointsNames) {
		return pointsNames[p]
	}
	return fmt.Sprintf("points(%d)", uint8(p))
}

// ParsePoints is the inverse of Points.String.
func ParsePoints(s string) (Points, error) {
	for i, n := range pointsNames {
		if n == s {
			return Points(i), nil
		}
	}
	return 0, fmt.Errorf("unknown points mode %q (want all, sync or racy)", s)
}

// isPoint reports whether an access at pos is a scheduling point.
func (e *Exec) isPoint(pos Pos) bool {
	switch e.points {
	case PointsAll:
		return true
	case PointsRacy:
		return e.racyPoints[pos]
	}
	return false
}

// DataRace is a data race: two accesses to the same memory, at least one a write, that no
// synchronization orders.
type DataRace struct {
	// A is the access that came first in the execution that showed the race first, B the
	// one that found it.
	A, B RaceAccess
	// Schedule is the number of the first execution that showed the race (from 1), and
	// Schedules how many executions showed it.
	Schedule  int
	Schedules int
}

// RaceAccess is one side of a race.
type RaceAccess struct {
	Pos   Pos
	Write bool
	// G is the goroutine that accessed, and Created where it was started ("" for the test
	// body, G0).
	G       GID
	Created Pos
	// Stack is the goroutine's stack at the access, when it could be recovered by replaying
	// the execution (it is nil if the replay diverged).
	Stack []Frame

	seq int32
}

// Op is "read" or "write".
func (a *RaceAccess) Op() string { return accessKind(a.Write) }

func (r *DataRace) String() string {
	return fmt.Sprintf("data race between %s at %s by %v and %s at %s by %v", r.A.Op(), r.A.Pos, r.A.G, r.B.Op(), r.B.Pos, r.B.G)
}

// Key identifies the race's pair of source positions, in either order.
func (r *DataRace) Key() string {
	k := r.key()
	return k.a + " " + k.b
}

func (r *DataRace) key() racePair {
	k := racePair{r.A.Pos, r.B.Pos}
	if k.b < k.a {
		k.a, k.b = k.b, k.a
	}
	return k
}

// races returns the races the execution found, in the order found.
func (e *Exec) races() []DataRace {
	if e.race == nil || len(e.race.found) == 0 {
		return nil
	}
	out := make([]DataRace, len(e.race.found))
	for i, f := range e.race.found {
		out[i] = DataRace{A: e.raceAccessOf(f.a), B: e.raceAccessOf(f.b), Schedules: 1}
	}
	return out
}

func (e *Exec) raceAccessOf(a access) RaceAccess {
	ra := RaceAccess{Pos: a.pos, Write: a.write, G: a.g, seq: a.seq}
	if a.g > 0 && int(a.g) < len(e.gs) {
		ra.Created = e.gs[a.g].created
	}
	return ra
}

// configure applies the detector and points settings of cfg to e, before an execution.
func (e *Exec) configure(cfg *Config, racy map[Pos]bool) {
	e.root = cfg.Root
	e.strictLeaks = cfg.StrictLeaks
	e.points = cfg.Points
	e.racyPoints = racy
	e.race = nil
	e.raceFail = false
	if cfg.Races {
		if e.raceKept == nil {
			e.raceKept = newRaceDetector()
		}
		e.race = e.raceKept
		e.race.reset()
		e.raceFail = cfg.RacesFail
	}
}

// traceReplay replays the decisions of a recorded execution, to find the stacks of a race's
// accesses again (they are only captured when a race is new: capturing every access's stack
// would cost more than the rest of the detector).
type traceReplay struct {
	trace   []traceStep
	choices []choiceRecord
	i       int
}

func (s *traceReplay) Name() string              { return "race-stacks" }
func (s *traceReplay) Params() map[string]string { return nil }
func (s *traceReplay) Begin() bool               { s.i = 0; return true }
func (s *traceReplay) End(*Result)               {}

func (s *traceReplay) Pick(d *Decision) GID {
	if s.i >= len(s.trace) || s.trace[s.i].isChoice() {
		return NoGoroutine
	}
	g := s.trace[s.i].g
	s.i++
	return g
}

func (s *traceReplay) Choose(c *Choice) int {
	if s.i >= len(s.trace) || !s.trace[s.i].isChoice() {
		return -1
	}
	v := s.choices[s.trace[s.i].obj].value
	s.i++
	return int(v)
}

// raceStacks replays the execution that e just ran and fills in the stacks of the accesses of
// races. It runs on a fresh Exec, so that e's result stays valid.
func (r *runner) raceStacks(body func(*T), e *Exec, races []*DataRace) {
	cfg := r.cfg
	cfg.Strategy = &traceReplay{trace: append([]traceStep(nil), e.trace...), choices: append([]choiceRecord(nil), e.choices...)}
	cfg.Record = false
	cfg.KeepGoing = false
	cfg.OnExecution = nil
	cfg.FairSteps = -1 // the execution's own bound, which a strategy may have chosen (FairBounder)
	if e.fairSteps > 0 {
		cfg.FairSteps = e.fairSteps
	}
	capture := make(map[int32][]*[]Frame, 2*len(races))
	for _, rc := range races {
		capture[rc.A.seq] = append(capture[rc.A.seq], &rc.A.Stack)
		capture[rc.B.seq] = append(capture[rc.B.seq], &rc.B.Stack)
	}
	rr := runner{cfg: cfg, e: newExec(), racy: r.racy, capture: capture}
	rr.run(body, false)
}
