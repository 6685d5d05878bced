package explore

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"

	"github.com/interleave-dev/interleave/engine"
)

// Confirmation in a fresh process. All the schedules of a test run in one process, so state
// an earlier execution left behind (a package variable of a package that was not
// instrumented, a cache, a sync.Once already done, a goroutine of an abandoned execution) can
// make a later one fail where the program alone never would. Before a bug is reported, its
// saved schedule is replayed by a new process of the same test binary: a bug that happens
// there too is the program's; one that does not is reported as depending on the earlier
// executions, a notice and not a bug (a false bug costs a user's trust more than a missed
// one), with its schedule kept.

// confirmEnv lists the variables a confirming replay must not inherit: it is a plain replay
// that writes its one result to its own event file and talks to no debugger.
var confirmEnv = []string{"INTERLEAVE_REPLAY", "INTERLEAVE_EVENTS", "INTERLEAVE_DEBUG", "INTERLEAVE_MINIMIZE_FILE",
	"INTERLEAVE_MINIMIZE_OUT", "INTERLEAVE_REPLAY_STRICT"}

// confirm replays the schedule file path of test (a testing name, subtests separated by
// "/") in a new process of this test binary. It returns "" when the replay reproduced the
// bug, or else what the replay came to; err is set when the replay could not be run at all
// (and then nothing is known).
func confirm(test, path string) (outcome string, err error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("confirm the bug in a fresh process: %w", err)
	}
	ev, err := os.CreateTemp("", "interleave-confirm-*.jsonl")
	if err != nil {
		return "", fmt.Errorf("confirm the bug in a fresh process: %w", err)
	}
	ev.Close()
	defer os.Remove(ev.Name())
	cmd := exec.Command(exe, "-test.run", runPattern(test), "-test.count=1", "-test.timeout=0")
	env := os.Environ()[:0:0]
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(confirmEnv, name) {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "INTERLEAVE_REPLAY="+path, "INTERLEAVE_EVENTS="+ev.Name())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	b, err := os.ReadFile(ev.Name())
	if err != nil {
		return "", fmt.Errorf("confirm the bug in a fresh process: %w", err)
	}
	var result *Event
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for sc.Scan() {
		var e Event
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Event == "result" {
			result = &e
		}
	}
	switch {
	case result == nil:
		return "", fmt.Errorf("confirm the bug in a fresh process: the replay gave no result (%v): %s", runErr, lastLine(out.String()))
	case result.Error != "":
		// "replay of FILE did not reproduce the bug: the schedule has BUG, the replay
		// passed": the notice names the file and the bug already.
		msg := result.Error
		if i := strings.LastIndex(msg, ", the replay "); i >= 0 && strings.Contains(msg, "did not reproduce the bug") {
			msg = msg[i+2:]
		} else if _, rest, ok := strings.Cut(msg, path+": "); ok {
			msg = rest
		}
		return msg, nil
	case result.Bug == nil:
		return "the replay passed", nil
	}
	return "", nil
}

// runPattern is the -test.run pattern that selects exactly test and its parents.
func runPattern(test string) string {
	parts := strings.Split(test, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// unconfirmed is the notice for a bug found in schedule n that its replay in a fresh process
// did not reproduce (outcome says what the replay came to). A replay that passed points at
// what earlier executions left in the process; one that diverged, at a program whose steps
// depend on something else the engine does not control as well.
func unconfirmed(bug *engine.Bug, n int, outcome, path string) string {
	msg, _, _ := strings.Cut(bug.Message, "\n")
	why := "it depends on what earlier executions of the test left in the process (package variables the instrumenter " +
		"does not reset, such as those of packages that were not instrumented; caches; a sync.Once already done)"
	if strings.Contains(outcome, "diverged") {
		why = "the program took another path in the fresh process: its steps depend on something the engine does not " +
			"control — what earlier executions left in the process (package variables of packages that were not " +
			"instrumented, caches, a sync.Once already done), or what differs from one process to another (goroutine " +
			"ids, the depth of the stack the engine runs it on, the runtime's hash keys)"
	}
	return fmt.Sprintf("a %s (%s) was seen in schedule %d, but not when its schedule was replayed in a fresh process (%s): "+
		"%s, so it is not reported as a bug; its schedule is kept in %s", bug.Kind, msg, n, outcome, why, path)
}
