package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Running the four ways on a case, each timed to its first failure: interleave stress
// (runStress), the test binary repeated natively and under -race (runNative), and
// golang.org/x/tools/cmd/stress (runXStress).

// capped keeps the first max bytes written to it.
type capped struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - len(c.b); room > 0 {
		c.b = append(c.b, p[:min(len(p), room)]...)
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.b)
}

// stressEvent is what stressbench reads of interleave stress -json's events.
type stressEvent struct {
	Phase   string    `json:"phase"`
	Action  string    `json:"action"`
	Time    time.Time `json:"time"`
	Failure *struct {
		Kind    string        `json:"kind"`
		Test    string        `json:"test"`
		Message string        `json:"message"`
		Elapsed time.Duration `json:"elapsed"`
	} `json:"failure"`
}

// progressEvery is how often a stress process writes a progress event: its first one comes
// at least this long after the process's start.
const progressEvery = 250 * time.Millisecond

// runStress runs interleave stress on c. The time to first bug is the first failure's
// elapsed time. A failure's elapsed time counts from the start of its own process, so a
// failure of the melting pot (whose processes start when the tests alone have run) is timed
// from the start of the first process instead: each event's timestamp bounds that start from
// above (a failure's time minus its elapsed time; a progress event's time minus the
// progress period), and the smallest bound is taken.
func (b *bench) runStress(ctx context.Context, c benchCase, seed uint64) result {
	args := []string{"stress", "-json", "-explore=false", "-time", b.budget.String(), "-seed", strconv.FormatUint(seed, 10),
		"-p", strconv.Itoa(procs), c.pkg, "-run", c.run}
	dir := filepath.Join(b.root, c.mod)
	shown := slices.Clone(args)
	shown[slices.Index(shown, "-seed")+1] = "SEED"
	b.remember(c, dir, strings.Replace(b.cmdLine(b.interleave, shown), "SEED", "$S", 1),
		"S = "+b.seedList()+", one per run; interrupted 0.5 s after its first failure event")
	cmd := exec.Command(b.interleave, args...)
	cmd.Dir = dir
	ownGroup(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return result{err: err}
	}
	stderr := &capped{max: 1 << 20}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return result{err: err}
	}
	defer killGroup(cmd) // what it left behind
	events := make(chan stressEvent)
	go func() {
		defer close(events)
		rd := bufio.NewReader(stdout)
		for {
			line, err := rd.ReadBytes('\n')
			var e stressEvent
			if json.Unmarshal(line, &e) == nil && e.Action != "" {
				events <- e
			}
			if err != nil {
				io.Copy(io.Discard, rd)
				return
			}
		}
	}()
	var (
		start       time.Time // the smallest upper bound of the first process's start
		first       *stressEvent
		interrupted bool
		stopSoon    <-chan time.Time
		killSoon    <-chan time.Time
	)
	bound := func(t time.Time) {
		if start.IsZero() || t.Before(start) {
			start = t
		}
	}
	// The run ends by itself after its build and the budget; the deadline is a safety net.
	deadline := time.NewTimer(b.budget + 5*time.Minute)
	defer deadline.Stop()
loop:
	for {
		select {
		case e, ok := <-events:
			if !ok {
				break loop
			}
			switch {
			case e.Failure != nil:
				bound(e.Time.Add(-e.Failure.Elapsed))
				if first == nil || e.Time.Before(first.Time) {
					first = &e
				}
				if stopSoon == nil && !interrupted {
					// Another process's earlier failure may still be on its way (interleave
					// stress reads the processes' events every 100ms); then stop the run.
					stopSoon = time.After(500 * time.Millisecond)
				}
			case e.Action == "progress":
				bound(e.Time.Add(-progressEvery))
			}
		case <-stopSoon:
			stopSoon, interrupted = nil, true
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				killGroup(cmd)
			}
			killSoon = time.After(15 * time.Second)
		case <-killSoon:
			killSoon = nil
			killGroup(cmd)
		case <-deadline.C:
			killGroup(cmd)
			interrupted = true
		case <-ctx.Done():
			killGroup(cmd)
			interrupted = true
		}
	}
	waitErr := cmd.Wait()
	if first != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(first.Failure.Message), "\n")
		return result{found: true, ttfb: first.Time.Sub(start), kind: first.Failure.Kind, msg: first.Failure.Test + ": " + msg}
	}
	if waitErr != nil && !interrupted {
		return result{err: fmt.Errorf("interleave stress: %v without a failure event:\n%s", waitErr, lastLines(stderr.String(), 20))}
	}
	return result{}
}

func (b *bench) seedList() string {
	var s []string
	for r := 0; r < b.reps; r++ {
		s = append(s, strconv.FormatUint(b.seed+uint64(r), 10))
	}
	return strings.Join(s, ", ")
}

// runNative runs a test binary with -test.count=100000000 -test.failfast until it fails or the
// budget ends.
func (b *bench) runNative(ctx context.Context, c benchCase, bin string) result {
	args := []string{"-test.run", c.run, "-test.count=100000000", "-test.failfast", "-test.timeout=" + (b.budget + 5*time.Second).String()}
	dir := b.pkgDir(c)
	b.remember(c, dir, b.cmdLine(bin, args), "killed at the budget")
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	ownGroup(cmd)
	out := &capped{max: 1 << 20}
	cmd.Stdout, cmd.Stderr = out, out
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return result{err: err}
	}
	defer killGroup(cmd)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(b.budget)
	defer timer.Stop()
	// The CPU time the binary uses in the last second of its budget tells whether it was
	// still running tests or was blocked, as a hang leaves it.
	var sample <-chan time.Time
	if b.budget > 2*time.Second {
		sample = time.After(b.budget - time.Second)
	}
	cpu0 := time.Duration(-1)
	var res result
loop:
	for {
		select {
		case err := <-done:
			el := time.Since(t0)
			if err == nil {
				return result{} // every count passed
			}
			kind, msg := classify(out.String())
			return result{found: true, ttfb: el, kind: kind, msg: msg}
		case <-sample:
			cpu0 = cpuTime(cmd.Process.Pid)
		case <-timer.C:
			if cpu1 := cpuTime(cmd.Process.Pid); cpu0 >= 0 && cpu1 >= 0 && cpu1-cpu0 <= stallCPU {
				res.stalled = true
			}
			break loop
		case <-ctx.Done():
			break loop
		}
	}
	killGroup(cmd)
	<-done
	return res
}

// stallCPU is the most CPU time a test binary may use in the last second of its budget to
// count as stalled.
const stallCPU = 20 * time.Millisecond

// cpuTime returns the CPU time process pid has used, or -1 where /proc does not say.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// The fields after the command name, which is in parentheses: state is field 3, utime
	// and stime (in clock ticks, 100 per second on Linux) fields 14 and 15.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return -1
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// runXStress runs x/tools stress on the native test binary until it reports a failed run or
// the budget ends.
func (b *bench) runXStress(ctx context.Context, c benchCase) result {
	prefix := filepath.Join(b.tmp, "go-stress-")
	args := []string{"-p", strconv.Itoa(procs), "-timeout", "10s", "-o", prefix, b.testBinary(c, false), "-test.run", c.run, "-test.count=1"}
	dir := b.pkgDir(c)
	b.remember(c, dir, b.cmdLine(b.xstress, args), "killed at its first failure or at the budget")
	cmd := exec.Command(b.xstress, args...)
	cmd.Dir = dir
	ownGroup(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return result{err: err}
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return result{err: err}
	}
	defer killGroup(cmd)
	type line struct {
		text string
		at   time.Duration
	}
	lines := make(chan line)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		for sc.Scan() {
			lines <- line{sc.Text(), time.Since(t0)}
		}
		io.Copy(io.Discard, stdout)
	}()
	timer := time.NewTimer(b.budget)
	defer timer.Stop()
	var res result
loop:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				break loop
			}
			if strings.HasPrefix(l.text, prefix) {
				// The path of the first failed run's log; its output follows.
				log, _ := os.ReadFile(l.text)
				res.found, res.ttfb = true, l.at
				res.kind, res.msg = classify(string(log))
				break loop
			}
		case <-timer.C:
			break loop
		case <-ctx.Done():
			break loop
		}
	}
	killGroup(cmd)
	go func() {
		for range lines {
		}
	}()
	cmd.Wait()
	return res
}
