package main

import (
	"fmt"
	"strings"
	"testing"
)

// examplesTest has examples go test runs (with an output comment) and one it only compiles.
const examplesTest = `package m

import (
	"fmt"
	"runtime"
	"sync"
)

// Two goroutines print a line each, under a lock: which is first depends on the schedule.
func Example_order() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	wg.Add(2)
	for _, s := range []string{"a", "b"} {
		go func() {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			fmt.Println(s)
		}()
	}
	wg.Wait()
	// Output:
	// a
	// b
}

// The same lines, in any order: correct under every schedule.
func Example_unordered() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	wg.Add(2)
	for _, s := range []string{"a", "b"} {
		go func() {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			fmt.Println(s)
		}()
	}
	wg.Wait()
	// Unordered output:
	// a
	// b
}

// The second line waits for the first: correct under every schedule.
func Example_ordered() {
	done := make(chan bool)
	go func() { fmt.Println("a"); done <- true }()
	<-done
	fmt.Println("b")
	// Output:
	// a
	// b
}

// It prints its caller, testing.runExample under go test; under the engine the caller is the
// harness's, the same in every schedule: a difference that does not depend on the schedule.
func Example_caller() {
	pc, _, _, _ := runtime.Caller(1)
	done := make(chan string)
	go func() { done <- runtime.FuncForPC(pc).Name() }()
	fmt.Println(<-done)
	// Output:
	// testing.runExample
}

// No output comment: go test compiles it and does not run it.
func Example_notRun() {
	panic("run")
}
`

// Examples with an output comment are explored as tests are, their output compared after
// every schedule: one whose output depends on the schedule is found failing, with go test's
// got/want report and a saved schedule that replays to it; correct ones pass; one whose output
// differs the same way in every schedule (it prints its caller) passes with a notice; one
// without an output comment is not run.
func TestExamplesExplored(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := writeModule(t, map[string]string{"m_test.go": examplesTest})
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-json", "-minimize", "0", "-schedules", "200", ".")
	if code != 1 {
		t.Fatalf("interleave test: exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	finals := finalEvents(t, out)
	order, ok := finals["Example_order"]
	if !ok || order.Action != "fail" || order.Bug == nil || order.Bug.Schedule == "" {
		t.Fatalf("Example_order: %+v: want a failure with its schedule\n%s", order, out)
	}
	if !strings.Contains(order.Bug.Message, "got:\nb\na\nwant:\na\nb") || !strings.HasSuffix(order.Bug.Position, "m_test.go:10") {
		t.Errorf("Example_order's failure %q at %s: want go test's got/want with the lines swapped, at the example (m_test.go:10)", order.Bug.Message, order.Bug.Position)
	}
	for _, name := range []string{"Example_unordered", "Example_ordered"} {
		if e, ok := finals[name]; !ok || e.Action != "pass" || e.Schedules == nil || *e.Schedules < 10 || e.Notice != "" {
			t.Errorf("%s: %+v: want a pass, explored", name, e)
		}
	}
	caller, ok := finals["Example_caller"]
	if !ok || caller.Action != "pass" || caller.Bug != nil || caller.Schedules == nil || *caller.Schedules < 10 ||
		!strings.Contains(caller.Notice, fmt.Sprintf("(m_test.go:60) the same way in every schedule that ran it to its end (%d of them", *caller.Schedules)) {
		t.Errorf("Example_caller: %+v: want a pass, explored, with the notice that its output differs the same way in every schedule", caller)
	}
	if e, ok := finals["Example_notRun"]; ok {
		t.Errorf("Example_notRun, which has no output comment, was run: %+v", e)
	}
	code, out, errOut = interleaveIn(t, dir, nil, "replay", order.Bug.Schedule)
	if code != 1 || !strings.Contains(out, "got:\nb\na\nwant:\na\nb") {
		t.Fatalf("replay: exit %d, want 1 with the failure again\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// Alone, the example whose difference does not depend on the schedule passes: exit 0,
	// the notice printed with the result.
	code, out, errOut = interleaveIn(t, dir, nil, "test", "-minimize", "0", "-schedules", "50", "-run", "Example_caller", ".")
	if code != 0 || !strings.Contains(out+errOut, "does not depend on the schedule") {
		t.Fatalf("interleave test -run Example_caller: exit %d, want 0 with the notice\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
