package main

// The stress processes: running them in waves within the budget, following their events,
// and what a process that the race detector ended said.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/base"
	"github.com/interleave-dev/interleave/cmd/interleave/internal/test"
	"github.com/interleave-dev/interleave/engine/instrument"
	"github.com/interleave-dev/interleave/engine/stress"
)

// runAll runs procs, at most -p at once, within budget: in waves of -p processes when there
// are more, each process getting its wave's share. A process that ended on a failure it
// cannot survive (a hang, a panic, a data race) is started again without the failing test
// for the rest of its share.
func (r *stressRun) runAll(ctx context.Context, procs []*stressProc, budget time.Duration, work string) {
	if budget <= 0 {
		return
	}
	waves := (len(procs) + r.f.workers - 1) / r.f.workers
	share := budget / time.Duration(max(1, waves))
	sem := make(chan struct{}, r.f.workers)
	var wg sync.WaitGroup
	for i, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			deadline := time.Now().Add(share)
			for attempt := 0; ctx.Err() == nil; attempt++ {
				left := time.Until(deadline)
				if left < 10*time.Millisecond || len(p.plan.Tests) == 0 {
					return
				}
				p.plan.Budget = left
				p.plan.Hang = r.f.hang
				p.plan.Delay, p.plan.DelayMax, p.plan.Randomizer = 0.002, 100*time.Microsecond, true
				p.plan.Events = filepath.Join(work, fmt.Sprintf("stress-%d-%d.events", i, attempt))
				crashed, err := r.runProc(ctx, p)
				if err != nil {
					fmt.Fprintf(r.err, "interleave stress: %s: %v\n", p.pkg.ImportPath, err)
					return
				}
				if crashed == "" {
					if p.fresh {
						p.plan.Seed = p.plan.Seed*6364136223846793005 + 1442695040888963407
						continue
					}
					return
				}
				p.plan.Tests = slices.DeleteFunc(slices.Clone(p.plan.Tests), func(s string) bool { return s == crashed })
				p.plan.Combine = min(p.plan.Combine, len(p.plan.Tests))
				if p.phase == "together" && len(p.plan.Tests) < 2 {
					return
				}
			}
		}()
	}
	wg.Wait()
}

// runProc runs one stress process and reads its events; it returns the test whose failure
// ended the process early, if one did.
func (r *stressRun) runProc(ctx context.Context, p *stressProc) (crashed string, err error) {
	planJSON, _ := json.Marshal(p.plan)
	if err := os.WriteFile(p.plan.Events, nil, 0o644); err != nil {
		return "", err
	}
	cmd := instrument.Command(ctx, p.pkg.Binary, "-test.run", "^("+strings.Join(quoteAll(p.plan.Tests), "|")+")$",
		"-test.count=1", "-test.timeout=0", "-test.parallel="+strconv.Itoa(len(p.plan.Tests)+1))
	cmd.Dir = p.pkg.Dir
	cmd.Env = append(append(os.Environ(), stress.EnvPlan+"="+string(planJSON), "INTERLEAVE_CLI=1", "GORACE=halt_on_error=1 exitcode=66"), p.pkg.BuildEnv()...)
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.Cancel = func() error { return test.Interrupt(cmd) }
	cmd.WaitDelay = 10 * time.Second
	p.startedAt = time.Since(r.started)
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("run the test binary: %w", err)
	}
	// Follow the event file while the process runs.
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	ev, err := os.Open(p.plan.Events)
	if err != nil {
		return "", err
	}
	defer ev.Close()
	rd := bufio.NewReader(ev)
	var partial []byte
	read := func() {
		for {
			line, err := rd.ReadBytes('\n')
			if err != nil {
				partial = append(partial, line...)
				return
			}
			if len(partial) > 0 {
				line = append(partial, line...)
				partial = nil
			}
			var e stress.Event
			if json.Unmarshal(line, &e) == nil {
				if c := r.event(p, &e); c != "" {
					crashed = c
				}
			}
		}
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var waitErr error
loop:
	for {
		select {
		case waitErr = <-done:
			read()
			break loop
		case <-tick.C:
			read()
			r.progress()
		}
	}
	if r.f.verbose {
		fmt.Fprint(r.err, log.String())
	}
	if code := exitCode(waitErr); code == 66 || strings.Contains(log.String(), "WARNING: DATA RACE") {
		// Go's race detector ended the process (GORACE halt_on_error): its report names the
		// accesses, and the test is the one whose function the report names first.
		test := raceTest(log.String(), p.plan.Tests)
		f := &stress.Failure{Kind: stress.KindRace, Test: test, Message: "data race (Go's race detector)", Stacks: raceReport(log.String()),
			Elapsed: time.Since(r.started)}
		if r.f.json {
			// Not one of the process's events (the race detector ended it): written here.
			r.printJSON(p, &stress.Event{Action: "failure", Time: time.Now(), Failure: f})
		}
		r.record(p, f)
		return test, nil
	}
	if crashed == "" && waitErr != nil && ctx.Err() == nil {
		r.mu.Lock()
		e := r.last[p]
		r.mu.Unlock()
		if e == nil || e.Action != "done" {
			return "", fmt.Errorf("the test binary ended without its statistics: %s:\n%s", test.WhyEnded(waitErr), base.IndentLines(base.LastLines(log.String(), 30), "\t"))
		}
	}
	return crashed, nil
}

func exitCode(err error) int {
	var ee interface{ ExitCode() int }
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return 0
}

func quoteAll(names []string) []string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = regexp.QuoteMeta(n)
	}
	return q
}

// raceReport returns the race detector's first report in log.
func raceReport(log string) string {
	i := strings.Index(log, "WARNING: DATA RACE")
	if i < 0 {
		return ""
	}
	rest := log[i:]
	if j := strings.Index(rest, "=================="); j > 0 {
		rest = rest[:j]
	}
	return strings.TrimSpace(rest)
}

// raceTest names the test of tests whose function appears first in the race report (the
// only one, when there is one).
func raceTest(log string, tests []string) string {
	if len(tests) == 1 {
		return tests[0]
	}
	rep := raceReport(log)
	best, at := "", len(rep)+1
	for _, t := range tests {
		if i := strings.Index(rep, ".__il"+t+"."); i >= 0 && i < at {
			best, at = t, i
		}
	}
	if best == "" && len(tests) > 0 {
		best = tests[0]
	}
	return best
}
