package bench

import "strings"

// NativeOutcome is what one line of a native test binary's -test.v output says.
type NativeOutcome int

const (
	// NativeOther is any other line (the test's own output, a panic's text).
	NativeOther NativeOutcome = iota
	// NativeStart is "=== RUN   TestX": a run begins.
	NativeStart
	// NativePass is "--- PASS: TestX (…)" (or SKIP): the run ended without the bug.
	NativePass
	// NativeFail is "--- FAIL: TestX (…)": the run showed the bug.
	NativeFail
)

// ParseNativeLine classifies a line of `go test -v` output for the top-level test named test
// (subtests and other tests are NativeOther).
func ParseNativeLine(line, test string) NativeOutcome {
	line = strings.TrimRight(line, "\r")
	if rest, ok := strings.CutPrefix(line, "=== RUN"); ok {
		if strings.TrimSpace(rest) == test {
			return NativeStart
		}
		return NativeOther
	}
	for _, v := range []struct {
		prefix  string
		outcome NativeOutcome
	}{{"--- PASS: ", NativePass}, {"--- SKIP: ", NativePass}, {"--- FAIL: ", NativeFail}} {
		if rest, ok := strings.CutPrefix(line, v.prefix); ok {
			name, _, _ := strings.Cut(rest, " ")
			if name == test {
				return v.outcome
			}
		}
	}
	return NativeOther
}

// NativeTally counts the native runs of one benchmark across the processes that ran them:
// a process runs the test -test.count times and may end early, by a crash (the run under way
// counts as buggy) or because a run hung (the command stops it; that run counts as buggy too),
// after which the command starts another process for the runs left.
type NativeTally struct {
	Native
	test    string
	running bool // a run started and has not ended
}

// NewNativeTally starts counting the runs of test for benchmark, of which requested are
// wanted.
func NewNativeTally(benchmark, test string, requested int) *NativeTally {
	return &NativeTally{Native: Native{Benchmark: benchmark, Requested: requested}, test: test}
}

// Line takes one line of output and returns what it was.
func (t *NativeTally) Line(line string) NativeOutcome {
	o := ParseNativeLine(line, t.test)
	switch o {
	case NativeStart:
		if t.running { // the previous run never said how it ended: count it as failed
			t.end(true)
		}
		t.running = true
	case NativePass:
		if t.running {
			t.end(false)
		}
	case NativeFail:
		if t.running {
			t.end(true)
		}
	}
	return o
}

func (t *NativeTally) end(buggy bool) {
	t.running = false
	t.Runs++
	if buggy {
		t.Buggy++
		if t.FirstBug == 0 {
			t.FirstBug = t.Runs
		}
	}
}

// Running reports whether a run has started and not ended.
func (t *NativeTally) Running() bool { return t.running }

// Crashed ends the run under way as buggy because its process died.
func (t *NativeTally) Crashed() {
	if t.running {
		t.Crashes++
		t.end(true)
	}
}

// Hung ends the run under way as buggy because it ran past the per-run timeout.
func (t *NativeTally) Hung() {
	if t.running {
		t.Hangs++
		t.end(true)
	}
}

// Left is the number of runs still wanted.
func (t *NativeTally) Left() int { return t.Requested - t.Runs }

// Abandon forgets the run under way without counting it: the command stopped it for a reason
// of its own (the native time budget, an interruption).
func (t *NativeTally) Abandon() { t.running = false }

// Test is the name of the test the tally counts.
func (t *NativeTally) Test() string { return t.test }
