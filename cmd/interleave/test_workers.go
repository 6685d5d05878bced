// interleave test's worker processes (-p) and shards (-shard): the tests are spread over
// worker processes; a test with workers to spare is split among several, each exploring a
// disjoint part of its schedules (strategy.Part); the output stays per test and in order.

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/findings"
	"github.com/interleave-dev/interleave/engine/instrument"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// testJob is one test to explore, by one worker process per part.
type testJob struct {
	pkg   *instrument.Package
	test  string
	parts []strategy.Part
	// lockstep: the parts explore one search in step (PERIOD, strategy.Lockstep), their
	// rounds exchanged through this process (lockstepHub).
	lockstep bool
	work     string // the run's work directory (removed with it, swept if the run is killed)

	stdout, stderr bytes.Buffer // its output, printed in the tests' order
	outcome        testOutcome
	started        bool
	done           chan struct{}
}

// testsPerShard is how many tests each shard must get, at least, for -shard to split the
// test list rather than every test's schedules.
const testsPerShard = 4

// shardTests takes the shard's tests when -shard splits the test list: shard i of n explores
// the tests whose index in the list is i mod n, each whole — the same list on every machine,
// from the same code and flags. It does so when the strategy cannot be partitioned (PERIOD:
// the only split whose shards together explore exactly what one run would), and otherwise
// with at least testsPerShard tests per shard and no -time budget (which a test split would
// not multiply by the shards, as a schedule split does): every test is then explored in one
// shard only, without the repeated per-test work (the race-detection phase, the bug's
// confirmation) of a schedule split.
func shardTests(f *testFlags, jobs []*testJob, splittable bool) ([]*testJob, bool) {
	n := f.shard.Count
	if n <= 1 || splittable && (f.time > 0 || len(jobs) < testsPerShard*n) {
		return jobs, false
	}
	var mine []*testJob
	for i, j := range jobs {
		if i%n == f.shard.Index {
			mine = append(mine, j)
		}
	}
	return mine, true
}

// planJobs gives each test its parts: the shard's part (-shard, unless it split the test
// list), split among the workers the test list leaves over (-p) when the strategy can be
// partitioned, or explored by them in step (lockstep: PERIOD, whose shards split the test
// list).
func planJobs(f *testFlags, jobs []*testJob, splittable, lockstep, shardedByTests bool) {
	base := strategy.Part{}
	if f.shard.Count > 1 && !shardedByTests {
		base = base.Within(f.shard.Index, f.shard.Count)
	}
	per, extra := 1, 0
	if (splittable || lockstep) && len(jobs) > 0 && len(jobs) < f.workers {
		per, extra = f.workers/len(jobs), f.workers%len(jobs)
	}
	for i, j := range jobs {
		k := per
		if i < extra {
			k++
		}
		j.parts, j.lockstep = nil, lockstep && k > 1
		if k == 1 {
			j.parts = []strategy.Part{base}
			continue
		}
		for w := 0; w < k; w++ {
			j.parts = append(j.parts, base.Within(w, k))
		}
	}
}

// runJobs explores the jobs with at most f.workers test processes at once, starting them in
// order, and prints each job's output once it and every job before it are done.
func runJobs(ctx context.Context, f *testFlags, jobs []*testJob, out *output) {
	var mu sync.Mutex // the real output
	live := newLiveProgress(out, &mu)
	tokens := make(chan struct{}, f.workers)
	go func() {
		for _, j := range jobs {
			for range j.parts {
				select {
				case tokens <- struct{}{}:
				case <-ctx.Done():
				}
			}
			if ctx.Err() != nil {
				// Not started: nothing is printed for it, as for the tests an interrupted
				// go test did not reach.
				close(j.done)
				continue
			}
			j.started = true
			go func() {
				defer close(j.done)
				defer func() {
					for range j.parts {
						<-tokens
					}
				}()
				jo := out.forJob(&j.stdout, &j.stderr)
				j.outcome = runOneTest(ctx, f, j, jo, live)
			}()
		}
	}()
	for _, j := range jobs {
		<-j.done
		mu.Lock()
		out.clear()
		io.Copy(out.stdout, &j.stdout)
		io.Copy(out.stderr, &j.stderr)
		mu.Unlock()
	}
	live.stop()
}

// forJob is an output that writes into a job's buffers, without a progress line.
func (o *output) forJob(stdout, stderr io.Writer) *output {
	c := *o
	c.stdout, c.stderr, c.terminal, c.line = stdout, stderr, false, false
	// A consumer of -json learns that a test started when it starts, as with go test -json.
	c.runEmitted = o.json
	return &c
}

// liveProgress shows the progress of the running tests, summed over their workers: the
// terminal's progress line, or -json progress events as they come.
type liveProgress struct {
	out     *output
	mu      *sync.Mutex
	running map[string]*testProgress // by test
	order   []string
}

type testProgress struct {
	pkg, test string
	strategy  string
	started   time.Time
	parts     map[string]*explore.Event // the latest event of each part
}

func newLiveProgress(out *output, mu *sync.Mutex) *liveProgress {
	return &liveProgress{out: out, mu: mu, running: map[string]*testProgress{}}
}

func (l *liveProgress) begin(pkg, test string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := pkg + " " + test
	l.running[key] = &testProgress{pkg: pkg, test: test, started: time.Now(), parts: map[string]*explore.Event{}}
	l.order = append(l.order, key)
	if l.out.json {
		l.out.emit(jsonEvent{Action: "run", Package: pkg, Test: test})
	}
}

func (l *liveProgress) end(pkg, test string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := pkg + " " + test
	delete(l.running, key)
	l.order = slices.DeleteFunc(l.order, func(k string) bool { return k == key })
	l.show(nil)
}

// update records a part's progress event and shows the sums.
func (l *liveProgress) update(pkg, test string, e *explore.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tp := l.running[pkg+" "+test]
	if tp == nil {
		return
	}
	tp.parts[e.Part] = e
	tp.strategy = e.Strategy
	l.show(tp)
}

// show writes the progress: the -json event of the test that moved, or the terminal line.
func (l *liveProgress) show(moved *testProgress) {
	sum := func(tp *testProgress) (schedules, interleavings int) {
		for _, e := range tp.parts {
			schedules += e.Schedules
			interleavings += e.Interleavings
		}
		return
	}
	if l.out.json {
		if moved != nil {
			s, i := sum(moved)
			l.out.progress(&explore.Event{Event: "progress", Package: moved.pkg, Test: moved.test, Strategy: moved.strategy,
				Schedules: s, Interleavings: i, Elapsed: time.Since(moved.started).Seconds()})
		}
		return
	}
	if !l.out.terminal {
		return
	}
	switch len(l.order) {
	case 0:
		l.out.status("")
	case 1:
		tp := l.running[l.order[0]]
		s, i := sum(tp)
		l.out.progress(&explore.Event{Test: tp.test, Strategy: tp.strategy, Schedules: s, Interleavings: i, Elapsed: time.Since(tp.started).Seconds()})
	default:
		total, rate := 0, 0.0
		var names []string
		for _, k := range l.order {
			tp := l.running[k]
			s, _ := sum(tp)
			total += s
			if el := time.Since(tp.started).Seconds(); el > 0 {
				rate += float64(s) / el
			}
			names = append(names, tp.test)
		}
		if len(names) > 3 {
			names = append(names[:3], "…")
		}
		l.out.status(fmt.Sprintf("%d tests: %s schedules, %s/s (%s)", len(l.order), thousands(total), thousands(int(rate)), strings.Join(names, ", ")))
	}
}

func (l *liveProgress) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.out.status("")
}

// partResult is what one worker process of a test came to.
type partResult struct {
	part  strategy.Part
	event *explore.Event
	last  *explore.Event // its latest progress event
	log   string
	err   error
	// lockstepErr is what broke the lockstep search with this worker's round.
	lockstepErr error
}

// exploreParts runs the test's worker processes, one per part, and combines their results.
// The first bug found stops the others (unless -keep-going), as it stops a single process.
func exploreParts(ctx context.Context, f *testFlags, j *testJob, env []string, live *liveProgress) (*explore.Event, string, error) {
	if len(j.parts) == 1 && j.parts[0].Whole() {
		res, log, err := execTest(ctx, j.pkg, j.test, env, func(e *explore.Event) { live.update(j.pkg.ImportPath, j.test, e) })
		return res, log, err
	}
	tmp, err := os.MkdirTemp(j.work, "parts-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(tmp)
	pctx, stopOthers := context.WithCancel(ctx)
	defer stopOthers()
	var hub *lockstepHub
	var lockstepIns []*os.File
	if j.lockstep {
		if hub, lockstepIns, err = newLockstepHub(len(j.parts)); err != nil {
			return nil, "", err
		}
		defer hub.close()
	}
	results := make([]*partResult, len(j.parts))
	var wg sync.WaitGroup
	for i, part := range j.parts {
		r := &partResult{part: part}
		results[i] = r
		penv := append(slices.Clone(env), "INTERLEAVE_PART="+part.String())
		if len(j.parts) > 1 {
			penv = append(penv, "INTERLEAVE_FINDINGS_DIR="+filepath.Join(tmp, strconv.Itoa(i)))
		}
		var extra []*os.File
		if hub != nil {
			penv = append(penv, "INTERLEAVE_LOCKSTEP=/dev/fd/4")
			extra = append(extra, lockstepIns[i])
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.event, r.log, r.err = execTest(pctx, j.pkg, j.test, penv, func(e *explore.Event) {
				if e.Event == "lockstep" {
					if err := hub.round(i, e.Lockstep); err != nil {
						r.lockstepErr = err
					}
					return
				}
				r.last = e
				live.update(j.pkg.ImportPath, j.test, e)
			}, extra...)
			if hub != nil {
				stopped := "canceled"
				if r.event != nil {
					stopped = r.event.Stopped
				}
				hub.end(stopped)
			}
			if r.event != nil && r.event.Bug != nil && !f.keepGoing {
				stopOthers()
			}
		}()
	}
	wg.Wait()
	for _, r := range results {
		if r.lockstepErr != nil && r.err == nil {
			r.err = r.lockstepErr
		}
	}
	var logs []string
	for _, r := range results {
		if strings.TrimSpace(r.log) != "" {
			logs = append(logs, fmt.Sprintf("--- worker %s:\n%s", r.part, strings.TrimRight(r.log, "\n")))
		}
	}
	log := strings.Join(logs, "\n")
	if len(j.parts) == 1 {
		return results[0].event, log, results[0].err
	}
	res, err := combineParts(results, ctx.Err() != nil)
	if err != nil {
		return nil, log, err
	}
	if err := mergePartFindings(j, results, res); err != nil {
		res.Notice = strings.TrimPrefix(res.Notice+"\n", "\n") + err.Error()
	}
	return res, log, nil
}

// combineParts makes one result of the worker processes' results. A worker stopped because
// another found the bug counts the schedules of its last progress report.
func combineParts(results []*partResult, interrupted bool) (*explore.Event, error) {
	var bugPart *partResult
	var errs []string
	for _, r := range results {
		switch {
		case r.event != nil && r.event.Bug != nil:
			// The earliest bug: in a lockstep search (PERIOD) the parts number their
			// executions as the whole run does, and its first bug is the whole run's.
			if bugPart == nil || r.event.FirstBug < bugPart.event.FirstBug {
				bugPart = r
			}
		case r.err != nil && (bugPart == nil || !interrupted):
			errs = append(errs, fmt.Sprintf("worker %s: %v", r.part, r.err))
		case r.event != nil && r.event.Error != "":
			errs = append(errs, fmt.Sprintf("worker %s: %s", r.part, r.event.Error))
		}
	}
	if bugPart == nil && len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	c := &explore.Event{Event: "result"}
	if bugPart != nil {
		b := *bugPart.event
		c.Bug, c.Report, c.Trace, c.FirstBug, c.Error = b.Bug, b.Report, b.Trace, b.FirstBug, b.Error
	}
	var exhausted []string
	allExhausted := true
	var points []string // the racy points the first part with a result ended on
	first, samePoints := true, true
	fingerprints := map[uint64]bool{}
	approximate := false // a worker stopped before its result: its interleavings are a count
	var notices []string
	for _, r := range results {
		e := r.event
		if e == nil {
			// Stopped by the bug another worker found before it reported.
			allExhausted = false
			if r.last != nil {
				c.Schedules += r.last.Schedules
				c.Interleavings += r.last.Interleavings
				approximate = true
			}
			continue
		}
		c.Test, c.Package, c.Strategy, c.Points = e.Test, e.Package, e.Strategy, e.Points
		c.Schedules += e.Schedules
		c.Buggy += e.Buggy
		if e.Interleavings > len(e.Fingerprints) {
			// More than the part listed (engine.MaxFingerprints): a count, not a set.
			c.Interleavings += e.Interleavings
			approximate = true
		} else {
			for _, fp := range e.Fingerprints {
				fingerprints[fp] = true
			}
		}
		c.Probes += e.Probes
		c.Elapsed = max(c.Elapsed, e.Elapsed)
		c.MaxGoroutines = max(c.MaxGoroutines, e.MaxGoroutines)
		c.MaxSteps = max(c.MaxSteps, e.MaxSteps)
		c.DetectionSchedules = max(c.DetectionSchedules, e.DetectionSchedules)
		c.PeakMemory = max(c.PeakMemory, e.PeakMemory)
		for _, l := range e.Limitations {
			if !slices.ContainsFunc(c.Limitations, func(x engine.Limitation) bool { return x.Message == l.Message }) {
				c.Limitations = append(c.Limitations, l)
			}
		}
		for _, n := range strings.Split(e.Notice, "\n") {
			if n != "" && !slices.Contains(notices, n) {
				notices = append(notices, n)
			}
		}
		if e.Stopped == "skipped" {
			c.Stopped = "skipped"
		}
		if first {
			points, first = e.RacyPoints, false
		} else if !slices.Equal(points, e.RacyPoints) {
			samePoints = false
		}
		if e.Stopped == "exhausted" {
			exhausted = append(exhausted, e.Exhausted)
		} else {
			allExhausted = false
		}
	}
	// The same interleaving reached by two workers is one; the union's fingerprints go on
	// (to interleave merge) when they are the whole set.
	if approximate {
		c.Interleavings += len(fingerprints)
	} else {
		c.Interleavings = len(fingerprints)
		c.Fingerprints = slices.Sorted(maps.Keys(fingerprints))
	}
	c.Notice = strings.Join(notices, "\n")
	if bugPart != nil && c.Buggy > 1 {
		// The report's count of buggy schedules is the test's, not its part's.
		c.Report = buggyOf.ReplaceAllString(c.Report, fmt.Sprintf("${1} (%d buggy of %d)", c.Buggy, c.Schedules))
	}
	switch {
	case c.Stopped == "skipped":
	case bugPart != nil:
		c.Stopped = "bug"
	case allExhausted && !samePoints:
		// A race first seen in some parts made new scheduling points there: the parts
		// explored their shares of different trees, which do not add up to one.
		c.Stopped, c.Exhausted = "exhausted", "each part explored its share, but races first seen while exploring made different scheduling points in different parts, so the shares are of different schedule spaces: "+uniqueMessages(exhausted)
	case allExhausted:
		c.Stopped, c.Exhausted = "exhausted", combineExhausted(exhausted)
	case interrupted:
		c.Stopped = "canceled"
	default:
		c.Stopped = results[0].event.Stopped
	}
	return c, nil
}

// buggyOf is the first line of a bug's report (report.FormatFailure) up to its count of
// buggy schedules.
var buggyOf = regexp.MustCompile(`^(interleave: .* after \d+ schedule\(s\))( \(\d+ buggy of \d+\))?`)

// partExhausted is a systematic strategy's exhaustion message for a part (Systematic.Exhausted).
var partExhausted = regexp.MustCompile(`^all (\d+) schedules of part (\S+)( with ≤ (\d+) (\w+))? explored( \(the part's whole share of the schedule space\))?(.*)$`)

// uniqueMessages joins msgs with "; ", each once, in the order first given.
func uniqueMessages(msgs []string) string {
	var uniq []string
	for _, m := range msgs {
		if !slices.Contains(uniq, m) {
			uniq = append(uniq, m)
		}
	}
	return strings.Join(uniq, "; ")
}

// combineExhausted says what the parts of one test covered, together: the systematic
// strategies' counts summed, as the unpartitioned search would say them when the parts make
// the whole; other messages as they are, each once.
func combineExhausted(msgs []string) string {
	total, bound := 0, -1
	var unit, rest string
	whole, pruned := true, false
	var parts []string
	for _, m := range msgs {
		g := partExhausted.FindStringSubmatch(m)
		if g == nil {
			whole = false
			break
		}
		n, _ := strconv.Atoi(g[1])
		total += n
		parts = append(parts, g[2])
		if g[3] != "" {
			b, _ := strconv.Atoi(g[4])
			bound, unit = max(bound, b), g[5]
			// Without "(… whole share …)" a maximum bound cut the space: the bound is
			// that maximum, the same in every part.
			pruned = pruned || g[6] == ""
		}
		rest = g[7]
	}
	if !whole {
		return uniqueMessages(msgs)
	}
	of := ""
	if u := findings.UnionOfParts(parts); u != "" {
		of = " of part " + u
	}
	msg := fmt.Sprintf("all %d schedules%s", total, of)
	switch {
	case bound < 0:
		msg += " explored"
	case pruned:
		msg += fmt.Sprintf(" with ≤ %d %s explored", bound, unit)
	case of == "":
		msg += fmt.Sprintf(" with ≤ %d %s explored (the whole schedule space)", bound, unit)
	default:
		msg += fmt.Sprintf(" with ≤ %d %s explored (the part's whole share of the schedule space)", bound, unit)
	}
	return msg + rest
}

// mergePartFindings merges the findings documents the test's workers wrote into the store,
// and points the result at the merged document.
func mergePartFindings(j *testJob, results []*partResult, res *explore.Event) error {
	var docs []*findings.File
	for _, r := range results {
		if r.event == nil || r.event.Findings == "" {
			continue
		}
		d, err := findings.Load(r.event.Findings)
		if err != nil {
			return fmt.Errorf("the findings of worker %s: %v", r.part, err)
		}
		docs = append(docs, d)
	}
	if len(docs) == 0 {
		return nil
	}
	m, err := findings.Merge(docs, false)
	if err != nil {
		return fmt.Errorf("the findings of the workers: %v", err)
	}
	if err := m.Save(j.pkg.ModuleDir); err != nil {
		return err
	}
	res.Findings, res.Races = m.Path, len(m.Races)
	return nil
}
