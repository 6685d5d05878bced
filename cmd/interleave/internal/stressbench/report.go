package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Reading what failed from a run's output (classify), and the Markdown table with the
// first failures, the commands and the machine (report).

var (
	testMessage = regexp.MustCompile(`(?m)^\s+\S+\.go:\d+: .*$`)
	panicLine   = regexp.MustCompile(`(?m)^(panic: |fatal error: ).*$`)
)

// classify names the failure in a test binary's output, and returns its first line.
func classify(out string) (kind, msg string) {
	firstMsg := ""
	for _, m := range testMessage.FindAllString(out, -1) {
		if !strings.Contains(m, "race detected during execution of test") {
			firstMsg = strings.TrimSpace(m)
			break
		}
	}
	p := panicLine.FindString(out)
	switch {
	case strings.Contains(out, "panic: test timed out"):
		kind, msg = "hang (test timeout)", p
	case strings.Contains(out, "SIGABRT: abort"):
		kind, msg = "hang (stress -timeout)", "SIGABRT: abort"
	case strings.Contains(out, "all goroutines are asleep - deadlock"):
		kind, msg = "deadlock", p
	case strings.Contains(out, "WARNING: DATA RACE"):
		kind, msg = "race", raceLine(out)
		if firstMsg != "" {
			kind, msg = "race+fail", firstMsg
		}
	case p != "":
		kind, msg = "panic", p
	case firstMsg != "":
		kind, msg = "fail", firstMsg
	case strings.Contains(out, "--- FAIL"):
		kind, msg = "fail", "--- FAIL"
	default:
		kind, msg = "exit", lastLines(out, 1)
	}
	return kind, msg
}

// raceLine summarizes the race detector's first report: its first access and where.
func raceLine(out string) string {
	_, rep, _ := strings.Cut(out, "WARNING: DATA RACE\n")
	lines := strings.Split(rep, "\n")
	if len(lines) < 3 {
		return "WARNING: DATA RACE"
	}
	access, _, _ := strings.Cut(strings.TrimSpace(lines[0]), " at 0x") // "Write at 0x… by goroutine 8:"
	fn := strings.TrimSpace(lines[1])
	pos, _, _ := strings.Cut(strings.TrimSpace(lines[2]), " +0x")
	return fmt.Sprintf("WARNING: DATA RACE: %s in %s at %s", access, fn, filepath.Base(pos))
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func (r result) String() string {
	switch {
	case r.err != nil:
		return "error: " + r.err.Error()
	case r.found:
		return fmtDur(r.ttfb) + " " + r.kind + ": " + r.msg
	case r.stalled:
		return "✗ (stalled: no CPU time in its last second)"
	}
	return "✗"
}

func fmtDur(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s < 0.1:
		return fmt.Sprintf("%.3f s", s)
	case s < 10:
		return fmt.Sprintf("%.2f s", s)
	}
	return fmt.Sprintf("%.1f s", s)
}

// cell summarizes the runs of one case and way: the median time to first bug over the runs
// that found one, how many did, and the kinds of their first failures.
func cell(runs []result) string {
	var times []time.Duration
	var kinds []string
	errs, stalled := 0, 0
	for _, r := range runs {
		switch {
		case r.err != nil:
			errs++
		case r.stalled:
			stalled++
		case r.found:
			times = append(times, r.ttfb)
			if !slices.Contains(kinds, r.kind) {
				kinds = append(kinds, r.kind)
			}
		}
	}
	var s string
	if len(times) == 0 {
		s = fmt.Sprintf("✗ (0/%d)", len(runs))
	} else {
		slices.Sort(times)
		m := times[len(times)/2]
		if len(times)%2 == 0 {
			m = (times[len(times)/2-1] + times[len(times)/2]) / 2
		}
		s = fmt.Sprintf("%s (%d/%d) %s", fmtDur(m), len(times), len(runs), strings.Join(kinds, ", "))
	}
	if stalled > 0 {
		s += fmt.Sprintf(", stalled in %d", stalled)
	}
	if errs > 0 {
		s += fmt.Sprintf(" — %d run(s) could not run", errs)
	}
	return s
}

func mdEscape(s string) string {
	s = strings.NewReplacer("|", `\|`, "`", "'", "\n", " ", "\t", " ", "<", "&lt;", ">", "&gt;").Replace(s)
	if len(s) > 110 {
		s = s[:110] + "…"
	}
	return s
}

func (b *bench) report(w io.Writer, started time.Time, load0, load1 string) {
	fmt.Fprintf(w, "## Time to first bug: interleave stress, go test -count, go test -race -count, x/tools stress\n\n")
	fmt.Fprintf(w, "Budget %v per run; %d run(s) per case and way. A cell is the median time to first bug over the runs that found one, (runs that found it / runs), and the kinds of their first failures; ✗: no failure within the budget.\n\n", b.budget, b.reps)
	fmt.Fprintf(w, "| case | -run | %s |\n|---|---|", strings.Join(wayNames[:], " | "))
	for range nWays {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	for _, c := range b.cases {
		fmt.Fprintf(w, "| %s | `%s` |", c.name, strings.ReplaceAll(c.run, "|", `\|`))
		for wy := 0; wy < nWays; wy++ {
			fmt.Fprintf(w, " %s |", cell(b.results[c.name][wy]))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, `
How each time is taken:

- interleave stress: the first failure event's elapsed time (the build of the instrumented test binary is not counted), from the start of the first stress process; a failure in the melting pot (phase "together") counts the phase of the tests alone before it. Kinds are interleave stress's (fail, panic, hang, leak). The run is stopped 0.5 s after its first failure event.
- go test -count, go test -race -count: wall time from starting the test binary until it exits with a failure (the binary is built beforehand). "hang (test timeout)" would be go test's "panic: test timed out" counted as finding a hang at that time; with -test.timeout = budget + 5 s and the kill at the budget it cannot happen within the budget, so a test that hangs natively shows as ✗. "stalled in k": in k of the runs that found nothing, the test binary used at most 20 ms of CPU time in the last second of its budget (/proc/PID/stat) — it was blocked, most likely in a hang it had no way to report yet; not counted as found.
- x/tools stress: wall time from starting stress until it prints the path of its first failure log (it prints it when the failed run has exited). Its -timeout 10s (per run) is the only way it reports a hang, so it cannot report one before 10 s.
`)
	fmt.Fprintf(w, "\nThe first failure of each cell (from the first run that found one):\n\n| case | way | kind | first line |\n|---|---|---|---|\n")
	for _, c := range b.cases {
		for wy := 0; wy < nWays; wy++ {
			for _, r := range b.results[c.name][wy] {
				if r.err != nil {
					fmt.Fprintf(w, "| %s | %s | error | %s |\n", c.name, wayNames[wy], mdEscape(r.err.Error()))
					break
				}
				if r.found {
					fmt.Fprintf(w, "| %s | %s | %s | %s |\n", c.name, wayNames[wy], r.kind, mdEscape(r.msg))
					break
				}
			}
		}
	}
	fmt.Fprintf(w, "\nCommands ($TMP is a temporary directory, removed at the end; paths are relative to the repository root):\n\n```sh\n")
	fmt.Fprintf(w, "go build -o $TMP/interleave ./cmd/interleave\ngo build -o $TMP/stress golang.org/x/tools/cmd/stress\n")
	for _, c := range b.cases {
		fmt.Fprintf(w, "\n# %s\n", c.name)
		fmt.Fprintf(w, "(cd %s && go test -c -o %s %s)\n", c.mod, strings.ReplaceAll(b.testBinary(c, false), b.tmp, "$TMP"), c.pkg)
		fmt.Fprintf(w, "(cd %s && go test -c -race -o %s %s)\n", c.mod, strings.ReplaceAll(b.testBinary(c, true), b.tmp, "$TMP"), c.pkg)
		for _, l := range b.commands[c.name] {
			fmt.Fprintln(w, l)
		}
	}
	fmt.Fprintf(w, "```\n\n")
	fmt.Fprintf(w, "Machine: %s/%s, runtime.NumCPU() = %d, %s; load average %s at the start, %s at the end.\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), b.goVersion, load0, load1)
	fmt.Fprintf(w, "Date: %s to %s (UTC).\n", started.UTC().Format("2006-01-02 15:04"), time.Now().UTC().Format("2006-01-02 15:04"))
}

// loadAverage returns the 1-, 5- and 15-minute load averages, where the system says.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "(unknown)"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "(unknown)"
	}
	return strings.Join(f[:3], " ")
}
