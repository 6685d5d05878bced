// interleave test's worker processes (-p) and shards (-shard): the tests are spread over
// worker processes; a test with workers to spare is split among several, each exploring a
// disjoint part of its schedules (strategy.Part); the output stays per test and in order.

package test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/base"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/report"
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
	work     string        // the run's work directory (removed with it, swept if the run is killed)
	time     time.Duration // its time budget, decided when it starts (testFlags.testBudget)

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
	if n <= 1 || splittable && (f.timeSet && f.time > 0 || len(jobs) < testsPerShard*n) {
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
// the order start gives (startOrder: the same jobs), and prints each job's output once it and
// every job before it in jobs are done.
func runJobs(ctx context.Context, f *testFlags, jobs, start []*testJob, out *output) {
	var mu sync.Mutex // the real output
	live := newLiveProgress(out, &mu)
	tokens := make(chan struct{}, f.workers)
	began := time.Now()
	go func() {
		for i, j := range start {
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
			j.time = f.testBudget(time.Since(began), len(start)-i, f.workers)
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
		l.out.emit(JSONEvent{Action: "run", Package: pkg, Test: test})
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
		l.out.status(fmt.Sprintf("%d tests: %s schedules, %s/s (%s)", len(l.order), base.Thousands(total), base.Thousands(int(rate)), strings.Join(names, ", ")))
	}
}

func (l *liveProgress) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.out.status("")
}

// partResult is what one worker process of a test came to: what the reports combine, and
// its output.
type partResult struct {
	report.Part
	log string
	// lockstepErr is what broke the lockstep search with this worker's round.
	lockstepErr error
}

// exploreParts runs the test's worker processes, one per part, and combines their results.
// The first bug found stops the others (unless -keep-going), as it stops a single process.
func exploreParts(ctx context.Context, f *testFlags, j *testJob, env []string, live *liveProgress) (*explore.Event, string, error) {
	if len(j.parts) == 1 && j.parts[0].Whole() {
		res, log, err := ExecTest(ctx, j.pkg, j.test, env, func(e *explore.Event) { live.update(j.pkg.ImportPath, j.test, e) })
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
		r := &partResult{Part: report.Part{Part: part}}
		results[i] = r
		penv := append(slices.Clone(env), "INTERLEAVE_PART="+part.String())
		if len(j.parts) > 1 {
			penv = append(penv, "INTERLEAVE_FINDINGS_DIR="+filepath.Join(tmp, strconv.Itoa(i)))
		}
		var extra []*os.File
		if hub != nil {
			extra = append(extra, lockstepIns[i])
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Event, r.log, r.Err = ExecTest(pctx, j.pkg, j.test, penv, func(e *explore.Event) {
				if e.Event == "lockstep" {
					if err := hub.round(i, e.Lockstep); err != nil {
						r.lockstepErr = err
					}
					return
				}
				r.Last = e
				live.update(j.pkg.ImportPath, j.test, e)
			}, extra...)
			if hub != nil {
				stopped := "canceled"
				if r.Event != nil {
					stopped = r.Event.Stopped
				}
				hub.end(stopped)
			}
			if r.Event != nil && r.Event.Bug != nil && !f.keepGoing {
				stopOthers()
			}
		}()
	}
	wg.Wait()
	for _, r := range results {
		if r.lockstepErr != nil && r.Err == nil {
			r.Err = r.lockstepErr
		}
	}
	var logs []string
	for _, r := range results {
		if strings.TrimSpace(r.log) != "" {
			logs = append(logs, fmt.Sprintf("--- worker %s:\n%s", r.Part.Part, strings.TrimRight(r.log, "\n")))
		}
	}
	log := strings.Join(logs, "\n")
	if len(j.parts) == 1 {
		return results[0].Event, log, results[0].Err
	}
	parts := make([]*report.Part, len(results))
	for i, r := range results {
		parts[i] = &r.Part
	}
	res, err := report.CombineParts(parts, ctx.Err() != nil)
	if err != nil {
		return nil, log, err
	}
	addSaved(res, results)
	dropped := dropDuplicateSchedules(res, results)
	if err := mergePartFindings(j, results, res, dropped); err != nil {
		res.Notice = strings.TrimPrefix(res.Notice+"\n", "\n") + err.Error()
	}
	return res, log, nil
}

// mergePartFindings merges the findings documents the test's workers wrote into the store,
// and points the result at the merged document.
func mergePartFindings(j *testJob, results []*partResult, res *explore.Event, dropped map[string]bool) error {
	var docs []*findings.File
	for _, r := range results {
		if r.Event == nil || r.Event.Findings == "" {
			continue
		}
		d, err := findings.Load(r.Event.Findings)
		if err != nil {
			return fmt.Errorf("the findings of worker %s: %v", r.Part.Part, err)
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
	for i := range m.Bugs {
		// The bug's schedule is the one the run reports, not a duplicate removed.
		if dropped[m.Bugs[i].Schedule] {
			m.Bugs[i].Schedule = res.Bug.Schedule
		}
	}
	if err := m.Save(j.pkg.ModuleDir); err != nil {
		return err
	}
	res.Findings, res.Races = m.Path, len(m.Races)
	return nil
}

// dropDuplicateSchedules removes the schedules that workers other than the one whose bug the
// run reports saved in this run for the same bug (kind and position), and their copies as
// found: each worker saves and minimizes the bug it finds, and one -p 2 run left four files —
// four rows of the Schedules view — for one bug. A bug that a worker found again by replaying
// a saved schedule keeps that schedule, and a different bug keeps its own.
// It returns the schedules removed.
func dropDuplicateSchedules(res *explore.Event, results []*partResult) map[string]bool {
	dropped := map[string]bool{}
	if res.Bug == nil || res.Bug.Schedule == "" {
		return dropped
	}
	for _, r := range results {
		e := r.Event
		if e == nil || e.Bug == nil || e.SavedFailing > 0 {
			continue
		}
		b := e.Bug
		if b.Schedule == "" || b.Schedule == res.Bug.Schedule || b.Kind != res.Bug.Kind || b.Position != res.Bug.Position {
			continue
		}
		for _, p := range []string{b.Schedule, strings.TrimSuffix(b.Schedule, ".json") + ".found.json"} {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				res.Notice = strings.TrimPrefix(res.Notice+"\n", "\n") + fmt.Sprintf("the duplicate schedule of worker %s: %v", r.Part.Part, err)
			}
		}
		dropped[b.Schedule] = true
	}
	return dropped
}
