package main

// What interleave stress prints: the events as they come (-json), the failures, the live
// progress line and the summary.

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/interleave-dev/interleave/cmd/interleave/internal/base"
	"github.com/interleave-dev/interleave/engine/stress"
)

// event takes one event of p; it returns the failing test when the event says the process
// ends on its failure.
func (r *stressRun) event(p *stressProc, e *stress.Event) string {
	if e.Failure != nil {
		e.Failure.Elapsed += p.startedAt // since the run started
	}
	r.mu.Lock()
	r.last[p] = e
	r.mu.Unlock()
	if r.f.json {
		r.printJSON(p, e)
	}
	if e.Action == "done" {
		r.addStats(p, e)
	}
	if e.Failure != nil {
		r.record(p, e.Failure)
		if e.Failure.Kind == stress.KindHang || e.Failure.Kind == stress.KindPanic {
			return e.Failure.Test
		}
	}
	return ""
}

// printJSON writes e as a line of -json output.
func (r *stressRun) printJSON(p *stressProc, e *stress.Event) {
	b, _ := json.Marshal(struct {
		Package string `json:"package"`
		Phase   string `json:"phase"`
		*stress.Event
	}{p.pkg.ImportPath, p.phase, e})
	r.mu.Lock()
	fmt.Fprintf(r.out, "%s\n", b)
	r.mu.Unlock()
}

// addStats adds a finished process's statistics to the run's.
func (r *stressRun) addStats(p *stressProc, e *stress.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	pkg := p.pkg.ImportPath
	if r.tests[pkg] == nil {
		r.tests[pkg] = map[string]*stress.TestStats{}
		r.combos[pkg] = map[string]int64{}
	}
	for _, t := range e.Tests {
		s := r.tests[pkg][t.Name]
		if s == nil {
			s = &stress.TestStats{Name: t.Name, Failures: map[string]int{}}
			r.tests[pkg][t.Name] = s
		}
		s.Iterations += t.Iterations
		s.Total += t.Total
		s.Parallel = s.Parallel || t.Parallel
		for k, v := range t.Failures {
			s.Failures[k] += v
		}
	}
	for k, v := range e.Combinations {
		r.combos[pkg][k] += v
	}
	if p.phase == "together" {
		r.spreads[pkg] = append(r.spreads[pkg], e.Spread)
	}
}

func (r *stressRun) stats(pkg, test string) stress.TestStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.tests[pkg][test]; s != nil {
		return *s
	}
	return stress.TestStats{Name: test}
}

// record keeps a failure and prints it.
func (r *stressRun) record(p *stressProc, f *stress.Failure) {
	rec := &stressRecord{Package: p.pkg.ImportPath, Dir: p.pkg.Dir, BuildFlags: r.f.buildFlags, Seed: p.plan.Seed, Failure: f}
	r.mu.Lock()
	defer r.mu.Unlock()
	if f.Kind == stress.KindRace {
		// The process ended without its statistics: the race is counted here.
		pkg := p.pkg.ImportPath
		if r.tests[pkg] == nil {
			r.tests[pkg] = map[string]*stress.TestStats{}
			r.combos[pkg] = map[string]int64{}
		}
		if r.tests[pkg][f.Test] == nil {
			r.tests[pkg][f.Test] = &stress.TestStats{Name: f.Test, Failures: map[string]int{}}
		}
		r.tests[pkg][f.Test].Failures[f.Kind]++
	}
	r.failures = append(r.failures, rec)
	if r.f.json {
		return
	}
	r.clearLineLocked()
	with := ""
	if len(f.Together) > 0 {
		with = " (together with " + strings.Join(f.Together, ", ") + ")"
	}
	where := ""
	if f.Iteration > 0 {
		where = fmt.Sprintf(", iteration %d%s, GOMAXPROCS %d", f.Iteration, with, f.GOMAXPROCS)
	}
	fmt.Fprintf(r.out, "--- %s: %s %s%s, after %v\n", strings.ToUpper(f.Kind), p.pkg.ImportPath, f.Test, where, f.Elapsed.Round(time.Millisecond))
	if f.Pos != "" {
		fmt.Fprintf(r.out, "    %s: %s\n", f.Pos, f.Message)
	} else {
		fmt.Fprintf(r.out, "    %s\n", f.Message)
	}
	for _, l := range f.Logs {
		if !strings.HasSuffix(l, ": "+f.Message) {
			fmt.Fprintf(r.out, "    %s\n", l)
		}
	}
	if len(f.Inputs) > 0 {
		var in []string
		for _, d := range f.Inputs {
			in = append(in, fmt.Sprintf("%s=%v", d.Name, d.Value))
		}
		fmt.Fprintf(r.out, "    inputs: %s\n", strings.Join(in, " "))
	}
	if f.Stacks != "" {
		fmt.Fprintf(r.out, "%s\n", base.IndentLines(lastLinesHead(f.Stacks, 60), "    "))
	}
}

// lastLinesHead returns the first n lines of s, saying how many were left out.
func lastLinesHead(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf("\n... (%d more lines in the saved record)", len(lines)-n)
}

// progress shows the live progress line: iterations per test and failures, summed over the
// running processes.
func (r *stressRun) progress() {
	if !r.terminal {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	per := map[string]int64{}
	var names []string
	var rounds int64
	for _, e := range r.last {
		for _, t := range e.Tests {
			if _, ok := per[t.Name]; !ok {
				names = append(names, t.Name)
			}
			per[t.Name] += t.Iterations
		}
		rounds += e.Rounds
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %d", n, per[n]))
	}
	line := fmt.Sprintf("%v: %d rounds, %d failures; iterations: %s", time.Since(r.started).Round(time.Second), rounds, len(r.failures), strings.Join(parts, ", "))
	if len(line) > 160 {
		line = line[:157] + "..."
	}
	fmt.Fprintf(r.err, "\r\033[K%s", line)
	r.line = true
}

func (r *stressRun) clearLine() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearLineLocked()
}

func (r *stressRun) clearLineLocked() {
	if r.line {
		fmt.Fprint(r.err, "\r\033[K")
		r.line = false
	}
}

// summary prints per test its iterations, average duration and failures by kind, and per
// combination how many rounds ran it.
func (r *stressRun) summary() {
	if r.f.json {
		return
	}
	var pkgs []string
	for p := range r.tests {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		var names []string
		for n := range r.tests[pkg] {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(r.out, "%s\n", pkg)
		for _, n := range names {
			s := r.tests[pkg][n]
			avg := time.Duration(0)
			if s.Iterations > 0 {
				avg = s.Total / time.Duration(s.Iterations)
			}
			status := "ok"
			var kinds []string
			for k, v := range s.Failures {
				kinds = append(kinds, fmt.Sprintf("%d %s", v, k))
			}
			sort.Strings(kinds)
			if len(kinds) > 0 {
				status = "FAIL (" + strings.Join(kinds, ", ") + ")"
			}
			fmt.Fprintf(r.out, "    %-30s %8d iterations  avg %-10v total %-8v %s\n", n, s.Iterations, avg.Round(time.Microsecond), s.Total.Round(time.Millisecond), status)
		}
		var combos []string
		for c := range r.combos[pkg] {
			combos = append(combos, c)
		}
		sort.Strings(combos)
		for _, c := range combos {
			fmt.Fprintf(r.out, "    together %-40s %d rounds\n", c, r.combos[pkg][c])
		}
		if sp := r.spreads[pkg]; len(sp) > 0 {
			var parts []string
			for _, v := range sp {
				parts = append(parts, fmt.Sprintf("%.1f%%", 100*v))
			}
			fmt.Fprintf(r.out, "    melting pot: total time per test varies by %s (standard deviation / mean)\n", strings.Join(parts, ", "))
		}
	}
	if len(r.failures) == 0 {
		fmt.Fprintf(r.out, "ok: no failure in %v\n", time.Since(r.started).Round(time.Second))
	}
}
