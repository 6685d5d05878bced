package stress

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/random"
)

// The goroutine randomizer's parameters (§4.6, Appendix I): after a period RP drawn
// uniformly from [MinRP, MaxRP] (on average: see randomize), it suspends one goroutine for SD
// drawn uniformly from [MinSD, MaxSD]. Appendix I bounds the probability of hitting a depth-1 bug in an iteration
// of duration TP from below by 1/(2N) · MINTP/(MAXRP+MAXSD).
const (
	MinRP = 500 * time.Microsecond
	MaxRP = 5 * time.Millisecond
	MinSD = 100 * time.Microsecond
	MaxSD = 2 * time.Millisecond
)

// Exit codes of a stress process that stopped on a failure it cannot survive.
const (
	ExitHang  = 3
	ExitPanic = 4
)

var (
	joinMu   sync.Mutex
	joined   = map[string]func(*engine.T){}
	start    sync.Once
	finished = make(chan struct{})
	runErr   error
)

// Join is what an instrumented TestXxx does in stress mode: it hands its body to the driver
// and marks t parallel, so that Go's testing runs every selected test's Join at once, after
// TestMain's setup and after every test function has reached its Parallel (the tests that
// are not stress tests have run by then); the first to go on runs the driver over the bodies
// handed in, and every Join returns when the driver is done. A test of the plan that never
// joined (one the instrumenter could not rewrite) is left out of the run, and said so.
func Join(t *testing.T, plan *Plan, body func(*engine.T)) {
	joinMu.Lock()
	joined[t.Name()] = body
	joinMu.Unlock()
	t.Parallel()
	start.Do(func() {
		joinMu.Lock()
		bodies := maps.Clone(joined)
		joinMu.Unlock()
		p := *plan
		p.Tests = slices.DeleteFunc(slices.Clone(plan.Tests), func(name string) bool {
			if bodies[name] == nil {
				fmt.Fprintf(os.Stderr, "interleave stress: %s did not join the stress run (not instrumented?): left out\n", name)
				return true
			}
			return false
		})
		go func() {
			defer close(finished)
			if len(p.Tests) == 0 {
				runErr = fmt.Errorf("stress: none of the tests %v joined", plan.Tests)
				return
			}
			runErr = Run(&p, bodies)
		}()
	})
	<-finished
	if runErr != nil {
		t.Fatal(runErr)
	}
}

// driver runs one plan.
type driver struct {
	plan  *Plan
	cfg   *random.Config
	tests []*test
	start time.Time

	evMu sync.Mutex
	ev   *os.File

	mu      sync.Mutex // guards sched, the tests' statistics, running, rounds and combos
	sched   *scheduler
	running map[*iteration]struct{}
	rounds  int64
	combos  map[string]int64
	stop    atomic.Bool
}

// test is a test of the plan.
type test struct {
	index    int
	name     string
	body     func(*engine.T)
	iters    int64
	total    time.Duration
	min      time.Duration
	failures map[string]int
	parallel bool
	hang     time.Duration // from the configuration file; 0 for the default rule
}

// iteration is one run of a test's body.
type iteration struct {
	test     *test
	n        int64
	start    time.Time
	limit    time.Duration
	together []string
	draws    *drawLog
	t        *engine.T
	owner    *engine.StressOwner
	procs    int
}

// Run runs plan over the bodies of its tests (by name) until its budget is spent. A hang or
// a panic ends the process, after writing its failure and the statistics to the events.
func Run(plan *Plan, bodies map[string]func(*engine.T)) error {
	d := &driver{plan: plan, start: time.Now(), running: map[*iteration]struct{}{}, combos: map[string]int64{}}
	cfg, err := random.LoadConfig(".")
	if err != nil {
		return err
	}
	d.cfg = cfg
	if plan.Events != "" {
		if d.ev, err = os.OpenFile(plan.Events, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
			return fmt.Errorf("stress events: %w", err)
		}
		defer d.ev.Close()
	}
	for i, name := range plan.Tests {
		body := bodies[name]
		if body == nil {
			return fmt.Errorf("stress: test %s did not join", name)
		}
		tc := cfg.Test(name)
		hang := tc.Hang
		if hang == 0 && cfg != nil {
			hang = cfg.Hang
		}
		d.tests = append(d.tests, &test{index: i, name: name, body: body, failures: map[string]int{}, hang: hang})
	}
	d.sched = newScheduler(len(d.tests))

	engine.StartStress(engine.StressHooks{Panic: d.panicked})
	defer engine.StopStress()
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)

	// An interrupt (the interleave command cancelled) ends the run after the iterations under
	// way, with the statistics written, as the budget's end does.
	interrupted := make(chan os.Signal, 1)
	defer close(interrupted) // after signal.Stop: no signal is sent to it then
	signal.Notify(interrupted, os.Interrupt)
	defer signal.Stop(interrupted)
	go func() {
		if _, ok := <-interrupted; ok {
			d.stop.Store(true)
		}
	}()

	stopMonitor := make(chan struct{})
	var bg sync.WaitGroup
	bg.Add(1)
	go func() { defer bg.Done(); d.monitor(stopMonitor) }()
	if plan.Randomizer {
		bg.Add(1)
		go func() { defer bg.Done(); d.randomize(stopMonitor) }()
	}
	d.runRounds()
	close(stopMonitor)
	bg.Wait()
	d.emit(d.snapshot("done"))
	return nil
}

// runRounds runs rounds until the budget is spent (§4.3.1's loop: select, run, update, repeat).
func (d *driver) runRounds() {
	r := rand.New(rand.NewPCG(d.plan.Seed, 0x726f756e6473)) // "rounds"
	n := max(1, d.plan.Combine)
	ncpu := runtime.NumCPU()
	for !d.over() {
		d.mu.Lock()
		picked, counts := d.sched.plan(r, n)
		d.mu.Unlock()
		procs := 1 + r.IntN(ncpu)
		if d.plan.Repro != nil && d.plan.Repro.GOMAXPROCS > 0 {
			procs = d.plan.Repro.GOMAXPROCS
		}
		runtime.GOMAXPROCS(procs)
		if d.plan.Delay > 0 {
			engine.SetStressDelays(d.plan.Delay*2*r.Float64(), 0, d.plan.DelayMax)
		}
		names := make([]string, len(picked))
		for k, i := range picked {
			names[k] = d.tests[i].name
		}
		seeds := make([]uint64, len(picked))
		for k := range seeds {
			seeds[k] = r.Uint64()
		}
		var wg sync.WaitGroup
		for k, i := range picked {
			together := slices.Delete(slices.Clone(names), k, k+1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				start := time.Now()
				for c := 0; c < counts[k] && !d.over() && !d.done(d.tests[i]); c++ {
					d.iterate(d.tests[i], together, seeds[k]+uint64(c), procs)
				}
				d.mu.Lock()
				d.sched.turned(i, time.Since(start))
				d.mu.Unlock()
			}()
		}
		wg.Wait()
		slices.Sort(names)
		d.mu.Lock()
		d.rounds++
		if len(names) > 1 {
			d.combos[strings.Join(names, "+")]++
		}
		d.mu.Unlock()
	}
}

func (d *driver) over() bool {
	if d.stop.Load() || time.Since(d.start) >= d.plan.Budget {
		return true
	}
	if d.plan.Iterations > 0 {
		d.mu.Lock()
		defer d.mu.Unlock()
		for _, t := range d.tests {
			if t.iters < d.plan.Iterations {
				return false
			}
		}
		return true
	}
	return false
}

// done reports whether t has run the plan's iterations.
func (d *driver) done(t *test) bool {
	if d.plan.Iterations == 0 {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return t.iters >= d.plan.Iterations
}

// iterate runs one iteration of t's body and checks it (§3.3).
func (d *driver) iterate(t *test, together []string, seed uint64, procs int) {
	d.mu.Lock()
	t.iters++
	n := t.iters
	limit := d.hangLimit(t)
	d.mu.Unlock()
	it := &iteration{test: t, n: n, limit: limit, together: together, procs: procs,
		draws: newDrawLog(seed, hashName(t.name))}
	if rp := d.plan.Repro; rp != nil && rp.Test == t.name {
		it.draws.replayInputs(rp.Inputs)
	}
	it.t = engine.NewStressT(t.name, it.draws.draw)
	it.owner = engine.NewStressOwner(t.name)
	done := make(chan struct{})
	d.mu.Lock()
	it.start = time.Now()
	d.running[it] = struct{}{}
	d.mu.Unlock()
	it.owner.Go(func() {
		defer close(done)
		engine.RunStress(it.t, t.body)
	})
	<-done
	elapsed := time.Since(it.start)
	d.mu.Lock()
	delete(d.running, it)
	t.total += elapsed
	if t.min == 0 || elapsed < t.min {
		t.min = elapsed
	}
	d.sched.ran(t.index, elapsed)
	d.mu.Unlock()

	res := it.t.StressResult()
	if res.Parallel {
		d.mu.Lock()
		t.parallel = true
		d.mu.Unlock()
	}
	if res.Failed {
		d.fail(it, &Failure{Kind: KindFail, Message: res.Message, Pos: res.Pos, Logs: res.Logs})
	}
	d.checkLeaks(it, limit)
}

// hangLimit is t's hang limit (§3.3 i); d.mu is held.
func (d *driver) hangLimit(t *test) time.Duration {
	switch {
	case d.plan.Hang > 0:
		return d.plan.Hang
	case t.hang > 0:
		return t.hang
	}
	avg := d.sched.stats[t.index].avgRun()
	if avg == 0 {
		return FirstHang
	}
	return max(HangFloor, HangFactor*avg)
}

// checkLeaks reports the goroutines of it still alive a grace period after its body and
// cleanups returned: a goroutine that has called wg.Done (say) may not have exited yet, so
// the driver waits, backing off, up to max(100 ms, 10 × the test's average duration) and
// at most the hang limit, before calling what is left a leak.
func (d *driver) checkLeaks(it *iteration, limit time.Duration) {
	if it.owner.LiveCount() == 0 {
		return
	}
	d.mu.Lock()
	grace := min(limit, max(100*time.Millisecond, 10*d.sched.stats[it.test.index].avgRun()))
	d.mu.Unlock()
	deadline := time.Now().Add(grace)
	for wait := time.Microsecond; time.Now().Before(deadline); wait = min(2*wait, 10*time.Millisecond) {
		if it.owner.LiveCount() == 0 {
			return
		}
		time.Sleep(wait)
	}
	live := it.owner.Live()
	if len(live) == 0 {
		return
	}
	it.owner.Forget()
	ids := make(map[int64]bool)
	var where []string
	for _, g := range live {
		ids[g.ID] = true
		where = append(where, fmt.Sprintf("goroutine %d started at %s", g.ID, g.Created))
	}
	d.fail(it, &Failure{Kind: KindLeak,
		Message: fmt.Sprintf("%d goroutine(s) still running %v after the test returned: %s", len(live), grace, strings.Join(where, "; ")),
		Stacks:  stacksOf(func(id int64) bool { return ids[id] })})
}

// fail records a failure of it; the first of each kind per test is written out in full.
func (d *driver) fail(it *iteration, f *Failure) {
	f.Test, f.Iteration, f.Together, f.GOMAXPROCS = it.test.name, it.n, it.together, it.procs
	f.Inputs = it.draws.recorded()
	f.Elapsed = time.Since(d.start)
	d.mu.Lock()
	it.test.failures[f.Kind]++
	first := it.test.failures[f.Kind] == 1
	d.mu.Unlock()
	if first {
		ev := d.snapshot("failure")
		ev.Failure = f
		d.emit(ev)
	}
}

// panicked is the engine's hook for a goroutine of a test that panicked: Go would crash, so
// the driver reports it and ends the process.
func (d *driver) panicked(o *engine.StressOwner, v any, stack []byte) {
	d.mu.Lock()
	var it *iteration
	for r := range d.running {
		if r.owner == o {
			it = r
		}
	}
	d.mu.Unlock()
	if it == nil {
		it = &iteration{test: d.byName(o.Name()), draws: newDrawLog(0, 0)}
	}
	f := &Failure{Kind: KindPanic, Message: fmt.Sprintf("panic: %v", v), Stacks: string(stack)}
	if it.test == nil {
		it.test = &test{name: o.Name(), failures: map[string]int{}}
	}
	d.fail(it, f)
	d.finish(ExitPanic)
}

func (d *driver) byName(name string) *test {
	for _, t := range d.tests {
		if t.name == name {
			return t
		}
	}
	return nil
}

// finish writes the statistics and ends the process with code.
func (d *driver) finish(code int) {
	d.stop.Store(true)
	d.emit(d.snapshot("done"))
	os.Exit(code)
}

// monitor reports progress and detects hangs: an iteration running past its limit is a hang
// (§3.3 i); the driver dumps every goroutine's stack, as the seed dumps the process, names
// the tests running beside it, and ends the process.
func (d *driver) monitor(stop <-chan struct{}) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	lastProgress := time.Now()
	for {
		select {
		case <-stop:
			return
		case now := <-tick.C:
			d.mu.Lock()
			var hung *iteration
			for it := range d.running {
				if now.Sub(it.start) > it.limit {
					hung = it
					break
				}
			}
			d.mu.Unlock()
			if hung != nil {
				// The hung test's goroutines first, then every other goroutine's.
				ids := map[int64]bool{}
				for _, g := range hung.owner.Live() {
					ids[g.ID] = true
				}
				stacks := stacksOf(func(id int64) bool { return ids[id] })
				if rest := stacksOf(func(id int64) bool { return !ids[id] }); rest != "" {
					stacks += "\n\nThe process's other goroutines:\n\n" + rest
				}
				d.fail(hung, &Failure{Kind: KindHang,
					Message: fmt.Sprintf("iteration %d of %s did not return within its hang limit %v; its goroutines:", hung.n, hung.test.name, hung.limit),
					Stacks:  stacks})
				d.finish(ExitHang)
			}
			if now.Sub(lastProgress) >= 250*time.Millisecond {
				lastProgress = now
				d.emit(d.snapshot("progress"))
			}
		}
	}
}

// randomize is the goroutine randomizer (§4.6): after each period RP, drawn uniformly from
// [MinRP, MaxRP], one goroutine of the running tests, picked uniformly, is suspended for SD,
// drawn uniformly from [MinSD, MaxSD]. The periods are kept on the tests' operations, not on
// this goroutine's timer (engine.SetStressHolds says why): for each period drawn, the
// probability of a hold per instrumented operation is set to 1/(operations per second · RP),
// from the rate measured since the last period, so that holds come every RP on average and
// land where the tests' goroutines are. Until a rate is known the probability is that of a
// program running 10⁸ operations per second.
func (d *driver) randomize(stop <-chan struct{}) {
	r := rand.New(rand.NewPCG(d.plan.Seed, 0x7468726561647320)) // "threads "
	defer engine.SetStressHolds(0, 0, 0, 0)
	rate := 1e8
	lastOps, lastTime := engine.StressOperations(), time.Now()
	for {
		rp := MinRP + time.Duration(r.Int64N(int64(MaxRP-MinRP)+1))
		engine.SetStressHolds(1/(rate*rp.Seconds()), MinSD, MaxSD, d.plan.Seed)
		select {
		case <-stop:
			return
		case <-time.After(rp):
		}
		// A rate from at least 32 samples (131,072 operations); otherwise keep counting.
		if ops, now := engine.StressOperations(), time.Now(); ops-lastOps >= 32<<12 {
			rate = float64(ops-lastOps) / now.Sub(lastTime).Seconds()
			lastOps, lastTime = ops, now
		}
	}
}

// snapshot returns an event with the statistics so far.
func (d *driver) snapshot(action string) Event {
	d.mu.Lock()
	defer d.mu.Unlock()
	ev := Event{Action: action, Time: time.Now(), Rounds: d.rounds, Spread: d.sched.spread()}
	if len(d.combos) > 0 {
		ev.Combinations = make(map[string]int64, len(d.combos))
		for k, v := range d.combos {
			ev.Combinations[k] = v
		}
	}
	for _, t := range d.tests {
		s := TestStats{Name: t.name, Iterations: t.iters, Total: t.total, Min: t.min, Parallel: t.parallel}
		if len(t.failures) > 0 {
			s.Failures = make(map[string]int, len(t.failures))
			for k, v := range t.failures {
				s.Failures[k] = v
			}
		}
		ev.Tests = append(ev.Tests, s)
	}
	ev.Delays, ev.Holds = engine.StressCounts()
	return ev
}

func (d *driver) emit(ev Event) {
	if d.ev == nil {
		return
	}
	b, err := json.Marshal(ev)
	if err != nil {
		panic(err) // events hold only marshalable values
	}
	d.evMu.Lock()
	defer d.evMu.Unlock()
	d.ev.Write(append(b, '\n'))
}

// stacksOf returns the stacks of the goroutines whose ids keep accepts.
func stacksOf(keep func(id int64) bool) string {
	var out []string
	for _, g := range bytes.Split(engine.AllStacks(), []byte("\n\n")) {
		rest, ok := bytes.CutPrefix(g, []byte("goroutine "))
		if !ok {
			continue
		}
		if i := bytes.IndexByte(rest, ' '); i > 0 {
			if id, err := strconv.ParseInt(string(rest[:i]), 10, 64); err == nil && keep(id) {
				out = append(out, string(g))
			}
		}
	}
	return strings.Join(out, "\n\n")
}

func hashName(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// drawLog is an iteration's source of the randomizer's values (§4.1): a PCG seeded from the
// run's seed, the test and the iteration, whose draws are recorded so that a failing
// iteration can be re-run with the same inputs; a replay serves recorded values by name, in
// order, drawing afresh past them.
type drawLog struct {
	mu     sync.Mutex
	r      *rand.Rand
	draws  []Draw
	replay map[string][]float64
}

func newDrawLog(seed, stream uint64) *drawLog {
	return &drawLog{r: rand.New(rand.NewPCG(seed, stream))}
}

func (l *drawLog) replayInputs(in []Draw) {
	l.replay = make(map[string][]float64)
	for _, d := range in {
		l.replay[d.Name] = append(l.replay[d.Name], d.Value)
	}
}

func (l *drawLog) draw(name string, sample func(*rand.Rand) float64) float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var v float64
	if q := l.replay[name]; len(q) > 0 {
		v, l.replay[name] = q[0], q[1:]
	} else {
		v = sample(l.r)
	}
	l.draws = append(l.draws, Draw{Name: name, Value: v})
	return v
}

func (l *drawLog) recorded() []Draw {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.draws)
}
