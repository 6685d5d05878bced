package main

import (
	"strings"
	"testing"
)

// stateModule's tests pass on every run of go test, and failed from their second schedule on
// when the executions shared the package variables that the first one changed.
var stateModule = map[string]string{
	"m.go": `package m

import "errors"

var ErrStarted = errors.New("already started")

var (
	started  bool
	registry = map[string]int{}
	log      []string
	big      [2 << 20]byte
)

// Start may be called once per process.
func Start() error {
	if started {
		return ErrStarted
	}
	started = true
	registry["x"]++
	log = append(log, "start")
	big[0]++
	return nil
}
`,
	"m_test.go": `package m

import (
	"errors"
	"sync"
	"testing"
)

var runs int

func TestStartOnce(t *testing.T) {
	runs++
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := Start(); err != nil {
			t.Errorf("Start: %v", err)
		}
	}()
	wg.Wait()
	if err := Start(); !errors.Is(err, ErrStarted) {
		t.Errorf("second Start: %v, want ErrStarted", err)
	}
	if registry["x"] != 1 || len(log) != 1 || runs != 1 {
		t.Errorf("registry %v, log %v, runs %d: want one start in one run", registry, log, runs)
	}
}
`,
	"x_test.go": `package m_test

import (
	"sync"
	"testing"
)

var seen = map[int]bool{}

func TestExternal(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		mu.Lock()
		seen[len(seen)] = true
		mu.Unlock()
	}()
	wg.Wait()
	if len(seen) != 1 {
		t.Errorf("seen %v: want what this run added only", seen)
	}
}
`,
}

// Every execution starts from the package variables as the exploration found them — the
// package's, its test files' and the external test package's — so state an earlier execution
// left behind fails nothing; a variable too large to copy each time is named, not restored.
func TestPackageVariablesResetBeforeEachExecution(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	dir := writeModule(t, stateModule)
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-json", "-schedules", "50", "-minimize", "0", ".")
	if code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, test := range []string{"TestStartOnce", "TestExternal"} {
		if e := finalEvent(t, out, test); e.Action != "pass" || e.Notice != "" {
			t.Errorf("%s: %s, notice %q, bug %+v: want a pass", test, e.Action, e.Notice, e.Bug)
		}
	}
	if !strings.Contains(out+errOut, "package variable big (2097152 bytes) is not restored") {
		t.Errorf("the variable too large to restore is not named:\n%s\n%s", out, errOut)
	}
}
